/**
 * Benchmark of the Scylla mailbox store's page path (ADR-0022) against a real CQL server (the gate's
 * cluster: QIM_TEST_SCYLLA_ADDR/KEYSPACE/DC/RF, all required). Two fan-outs:
 *   A. one 1,000-recipient dispatch per page (5 pages per round);
 *   B. 1,000 three-recipient dispatches in pages of 100 (10 pages per round);
 * first on new recipients (their first entry of the day), then in ROUNDS rounds on the same
 * recipients once their day is registered, then once through a fresh store (cold cache). Every page
 * is paired with raw prepared INSERTs of exactly the entry rows it writes, 64 single-row INSERTs in
 * flight (the store's bound: at most 64 requests and at most 64 entries in flight — it sends up to 4
 * registered entries per batch), interleaved page by page (alternating which goes first)
 * so that both see the same machine. Prints entries/s, store ÷ raw, LWTs per dispatch (from the
 * store's statement counter and, independently, from the driver's request tracker), requests per
 * entry, client CPU per entry, and apply-start → frontier-visible latency (a second store polls the
 * frontier every 2 ms in separate rounds, so polling never slows the throughput rounds).
 * Run: tools/bench/scylla-mailbox.sh   (a scratch keyspace `<QIM_TEST_SCYLLA_KEYSPACE>_mbx_bench_<random>`
 * is created by `migrate` and dropped). The stores open through `@qim/backends/testing` (the Scylla
 * test kit: its statement counter, request tally, entry TTL rule and session for the raw INSERTs).
 */
import { randomBytes } from 'node:crypto';
import { encodeMailboxEntry, entriesOfDispatch, entryExpiry, id128ToBytes, systemClock } from '@qim/store-core';
import type { DispatchPage, DispatchRecord, Id128, MailboxStore, ShardEpoch } from '@qim/store-core';
import { openTestStores, scyllaTestBackendConfig } from '@qim/backends/testing';
import type { ScyllaInspection, TestStores } from '@qim/backends/testing';

const ROUNDS = Number(process.env['QIM_BENCH_ROUNDS'] ?? 5);
/** Pages applied (at least) while a second store polls the frontier, for the latency percentiles. */
const LATENCY_PAGES = 30;
const RETENTION = 7n * 86_400_000n;
const EPOCH = 1;
const rid = (): Id128 => randomBytes(16).toString('hex') as Id128;
const ids = (n: number): Id128[] => Array.from({ length: n }, rid).sort();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Sums of one measured run (store side and its paired raw side). */
interface Tally {
  entries: number;
  dispatches: number;
  storeMs: number;
  rawMs: number;
  storeCpuUs: number;
  rawCpuUs: number;
  lwts: number;
  trackedLwts: number;
  requests: number;
}

const emptyTally = (): Tally => ({ entries: 0, dispatches: 0, storeMs: 0, rawMs: 0, storeCpuUs: 0, rawCpuUs: 0, lwts: 0, trackedLwts: 0, requests: 0 });

function record(se: ShardEpoch, tenantId: Id128, recipients: readonly Id128[], createdAt: bigint): DispatchRecord {
  return {
    dispatchId: rid(),
    tenantId,
    shard: se.shard,
    messageId: rid(),
    conversationId: rid(),
    seq: 1n,
    createdAt,
    recipients: [...recipients].sort(),
    events: [{ ordinal: 0, eventId: rid(), payload: randomBytes(200) }],
  };
}

/** Runs `fn` and returns its wall time and client CPU (µs). */
async function timed(fn: () => Promise<unknown>): Promise<{ ms: number; cpuUs: number }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { ms, cpuUs: c.user + c.system };
}

/** Raw prepared INSERTs of exactly the entry rows of `page`, `IN_FLIGHT` at a time (rows encoded beforehand). */
async function rawInserts(inspect: ScyllaInspection, page: DispatchPage): Promise<{ ms: number; cpuUs: number }> {
  const IN_FLIGHT = inspect.defaultApplyConcurrency;
  const cql = `INSERT INTO ${inspect.keyspace}.mailbox_entry (tenant_id, user_id, mailbox_seq, entry) VALUES (?, ?, ?, ?) USING TTL ?`;
  const rows = page.records.flatMap((r) =>
    entriesOfDispatch(r.record, EPOCH, r.offset).map((e) => {
      const expiresAt = entryExpiry(e.createdAt, RETENTION);
      return [id128ToBytes(e.tenantId), id128ToBytes(e.userId), e.mailboxSeq, encodeMailboxEntry({ ...e, expiresAt }), expiresAt] as const;
    }),
  );
  let next = 0;
  return timed(() =>
    Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < rows.length) {
          const [t, u, s, blob, expiresAt] = rows[next++]!;
          await inspect.execute(cql, [t, u, s, blob, inspect.entryTtlSeconds(expiresAt, BigInt(Date.now()))], {
            prepare: true,
            executionProfile: 'write',
            isIdempotent: true,
          });
        }
      }),
    ),
  );
}

const entriesOf = (p: DispatchPage): number => p.records.reduce((n, r) => n + r.record.recipients.length, 0);

/** Applies `pages`, each paired with its raw INSERTs (order alternating page by page). */
async function pairedRun(inspect: ScyllaInspection, store: MailboxStore, pages: readonly DispatchPage[]): Promise<Tally> {
  const [counter, tally] = [inspect.mailboxStatements, inspect.requests];
  const out = emptyTally();
  for (const [i, page] of pages.entries()) {
    const storeSide = async (): Promise<void> => {
      counter.reset();
      tally.reset();
      const t = await timed(() => store.applyPage(page));
      out.storeMs += t.ms;
      out.storeCpuUs += t.cpuUs;
      out.lwts += counter.lwtCount();
      out.trackedLwts += tally.lwts;
      out.requests += counter.requests;
    };
    const rawSide = async (): Promise<void> => {
      const t = await rawInserts(inspect, page);
      out.rawMs += t.ms;
      out.rawCpuUs += t.cpuUs;
    };
    if (i % 2 === 0) {
      await rawSide();
      await storeSide();
    } else {
      await storeSide();
      await rawSide();
    }
    out.entries += entriesOf(page);
    out.dispatches += page.records.length;
  }
  return out;
}

/** apply-start → frontier-visible (ms) of each page, seen by a second store polling every 2 ms. */
async function visibility(store: MailboxStore, reader: MailboxStore, pages: readonly DispatchPage[]): Promise<number[]> {
  const out: number[] = [];
  for (const page of pages) {
    const start = performance.now();
    const applying = store.applyPage(page);
    for (;;) {
      const f = (await reader.frontier()).offset;
      if (f !== null && f >= page.toOffset) break;
      await sleep(2);
    }
    out.push(performance.now() - start);
    await applying;
  }
  return out;
}

const pct = (xs: readonly number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

interface Scenario {
  readonly name: string;
  /** Recipient groups of one set of dispatches (one dispatch per group). */
  readonly groups: Id128[][];
  readonly perPage: number;
  /** Sets of dispatches per measured round. */
  readonly setsPerRound: number;
}

function row(name: string, label: string, t: Tally): string {
  const storeRate = (t.entries * 1000) / t.storeMs;
  const rawRate = (t.entries * 1000) / t.rawMs;
  return (
    `| ${name} | ${label} | ${t.entries} | ${storeRate.toFixed(0)} | ${rawRate.toFixed(0)} | ${(storeRate / rawRate).toFixed(2)} | ` +
    `${(t.lwts / t.dispatches).toFixed(2)} (${(t.trackedLwts / t.dispatches).toFixed(2)}) | ${(t.requests / t.entries).toFixed(2)} | ` +
    `${(t.storeCpuUs / t.entries).toFixed(0)} / ${(t.rawCpuUs / t.entries).toFixed(0)} |`
  );
}

async function scenario(stores: TestStores<ScyllaInspection>, s: Scenario, shard: number): Promise<{ lines: string[]; ratios: number[]; visible: number[] }> {
  const se = { shard, epoch: EPOCH };
  const gc = { entryRetentionMs: RETENTION, dispatchDedupeMs: RETENTION };
  const inspect = stores.inspect;
  const store = stores.mailboxStore(se, gc);
  const tenantId = rid();
  let offset = 0n;
  const nextPages = (sets: number): DispatchPage[] => {
    const pages: DispatchPage[] = [];
    for (let k = 0; k < sets; k++) {
      const now = BigInt(Date.now());
      const records = s.groups.map((g) => record(se, tenantId, g, now));
      for (let i = 0; i < records.length; i += s.perPage) {
        const slice = records.slice(i, i + s.perPage).map((r, j) => ({ offset: offset + BigInt(i + j), record: r }));
        pages.push({ fromOffset: slice[0]!.offset, toOffset: slice[slice.length - 1]!.offset, records: slice });
      }
      offset += BigInt(records.length);
    }
    return pages;
  };
  const lines = [row(s.name, 'first day (new recipients)', await pairedRun(inspect, store, nextPages(1)))];
  const ratios: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t = await pairedRun(inspect, store, nextPages(s.setsPerRound));
    ratios.push(t.rawMs / t.storeMs);
    lines.push(row(s.name, `day registered, round ${i + 1}`, t));
  }
  const cold = stores.mailboxStore(se, gc);
  lines.push(row(s.name, 'day registered, fresh store (cold cache)', await pairedRun(inspect, cold, nextPages(1))));
  // the reader's frontier polls count on the kit's statement counter too, but in rounds of their own (pairedRun resets it per page)
  const reader = stores.mailboxStore(se, gc);
  const visible: number[] = [];
  while (visible.length < LATENCY_PAGES) visible.push(...(await visibility(store, reader, nextPages(1))));
  return { lines, ratios, visible };
}

async function main(): Promise<void> {
  const cfg = scyllaTestBackendConfig(process.env, `_mbx_bench_${randomBytes(3).toString('hex')}`);
  const stores = await openTestStores(cfg, { clock: systemClock, scratch: true });
  const tally = stores.inspect.requests;
  try {
    const warm = { fromOffset: 0n, toOffset: 0n, records: [{ offset: 0n, record: record({ shard: 9, epoch: EPOCH }, rid(), ids(1000), BigInt(Date.now())) }] };
    await rawInserts(stores.inspect, warm);
    const scenarios: [Scenario, number][] = [
      [{ name: 'A: 1 × 1,000 recipients', groups: [ids(1000)], perPage: 1, setsPerRound: 5 }, 1],
      [{ name: 'B: 1,000 × 3 recipients, pages of 100', groups: Array.from({ length: 1000 }, () => ids(3)), perPage: 100, setsPerRound: 1 }, 2],
    ];
    const results = [];
    for (const [s, shard] of scenarios) results.push({ s, ...(await scenario(stores, s, shard)) });
    console.log(
      `\nScylla mailbox page benchmark — ${stores.inspect.defaultApplyConcurrency} in flight ` +
        `(raw: single-row INSERTs; store: its bound on requests and on entries), ${ROUNDS} registered rounds, ${cfg.hosts.join(',')}\n`,
    );
    console.log(
      '| scenario | run | entries | store entries/s | raw INSERT rows/s | store ÷ raw | LWT/dispatch (tracker) | requests/entry | ' +
        'client CPU µs/entry store / raw |',
    );
    console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const r of results) for (const l of r.lines) console.log(l);
    console.log('\n| scenario | store ÷ raw, registered rounds (median [min … max]) | apply-start → frontier-visible p50 / p99 ms |');
    console.log('|---|---|---|');
    for (const r of results) {
      console.log(
        `| ${r.s.name} | **${pct(r.ratios, 0.5).toFixed(2)}** [${Math.min(...r.ratios).toFixed(2)} … ${Math.max(...r.ratios).toFixed(2)}] | ` +
          `${pct(r.visible, 0.5).toFixed(0)} / ${pct(r.visible, 0.99).toFixed(0)} (${r.visible.length} pages) |`,
      );
    }
    console.log(`\ndriver errors during the run: ${tally.errors.length}${tally.errors.length ? ` (${[...new Set(tally.errors)].join(', ')})` : ''}`);
  } finally {
    await stores.close(); // drops the scratch keyspace
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
