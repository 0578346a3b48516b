/**
 * Benchmark of the Redis mailbox apply path (ADR-0022; needs QIM_REDIS_URL, one server: the raw side
 * is one explicit pipeline per page; run: tools/bench/run.sh redis-mailbox). The store opens through
 * `@qim/backends/testing` (the Redis test kit, which also names the raw side's keys and counts the
 * store's commands).
 *
 * For three fan-out shapes — one 1,000-recipient dispatch per page, and 1,000 three-recipient
 * dispatches in pages of 100 and in pages of 500 (the mailbox's default page, QIM_MAILBOX_PAGE_RECORDS),
 * over 3 × page size three-member conversations — it measures `applyPage` entries/s
 * and, in the same run on the same server, raw pipelined writes of the same keys (the store's key
 * names, users under their mailbox bucket tags): per entry the `ZADD` of the entry (seq + bytes) into
 * its user's day index and the `ZADD … GT` of the day's bucket proof, one explicit pipeline per page
 * (one socket write, no scripts, no checks). The two alternate round by round until each has run QIM_BENCH_SECONDS, so
 * both see the same machine load; printed side by side with the ratio (target ≥ 0.5).
 * "warm": the recipients' day is already registered (the steady state); "cold": the first round to
 * fresh users, which registers their day (one compare-and-set per user).
 * Also printed: client calls per page (scripts + commands the store sent; one pipelined stream per
 * step), server commands per entry (INFO commandstats delta, including the commands run inside
 * scripts) and CPU µs per entry of this process and of the Redis server (INFO cpu), then per shape
 * the server's per-command profile of each side (INFO commandstats delta: calls and µs per entry,
 * µs per call), and the time from a page's `applyPage` call to its frontier write (every entry of
 * the page readable: for the 1,000-recipient shape, a dispatch's arrival to visibility in all 1,000
 * mailboxes), p50 / p99 per page; the server figures are exact only when nothing else uses the server.
 *
 * Warm users' entries take the store's plain path (two plain ZADDs, `WarmDays`) unless
 * QIM_BENCH_PLAIN_PATH=0, which sends every entry through the append script (the path before it).
 *
 * Env: QIM_BENCH_SECONDS (per side and shape, default 5), QIM_BENCH_APPLY_CONCURRENCY (append calls
 * in flight, default the store's), QIM_BENCH_PLAIN_PATH (default 1). Keys live under scratch namespaces, deleted at the end.
 */
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { composeMailboxSeq, dayOf, encodeMailboxEntry, entryExpiry, epochStartSeq, systemClock } from '@qim/store-core';
import type { DispatchPage, DispatchRecord, Id128 } from '@qim/store-core';
import { DEFAULT_MAILBOX_PAGE_RECORDS } from '@qim/mailbox-runtime';
import type { MailboxStore } from '@qim/store-core';
import type { Redis } from 'ioredis';
import type { RedisInspection } from '@qim/backends/testing';
import { backendConfigFromEnv, connectRawRedis, openTestStores } from '@qim/backends/testing';

const SECONDS = Number(process.env['QIM_BENCH_SECONDS'] ?? 5);
/** Append calls in flight: QIM_BENCH_APPLY_CONCURRENCY, else the store's default. */
const CONCURRENCY: number | undefined =
  process.env['QIM_BENCH_APPLY_CONCURRENCY'] === undefined ? undefined : Number(process.env['QIM_BENCH_APPLY_CONCURRENCY']);
const SHARD = 7;
const EPOCH = 1;
const RETENTION_MS = 7n * 86_400_000n;
const PAYLOAD = randomBytes(256);
const rid = (): Id128 => randomBytes(16).toString('hex') as Id128;
const tenantId = rid();

/** A fan-out shape: one round is a list of pages, each page a list of dispatches (their recipients). */
interface Shape {
  readonly name: string;
  round(): readonly (readonly (readonly Id128[])[])[];
}

function oneBigDispatch(): Shape {
  const users = Array.from({ length: 1000 }, rid).sort();
  return { name: '1 dispatch × 1,000 recipients (page of 1)', round: () => [[users]] };
}

/**
 * 1,000 three-recipient dispatches per round in pages of `pageSize`, over enough conversations that
 * no user has two entries in one page (each page is 3 × pageSize distinct users, like a shard's
 * page of unrelated conversations).
 */
function manySmallDispatches(pageSize: number): Shape {
  const conversations = Array.from({ length: pageSize * 3 }, () => [rid(), rid(), rid()].sort());
  let next = 0;
  const label = pageSize === DEFAULT_MAILBOX_PAGE_RECORDS ? `pages of ${pageSize}, the default QIM_MAILBOX_PAGE_RECORDS` : `pages of ${pageSize}`;
  return {
    name: `1,000 dispatches × 3 recipients (${label})`,
    round: () => Array.from({ length: 1000 / pageSize }, () => Array.from({ length: pageSize }, () => conversations[next++ % conversations.length]!)),
  };
}

function recordOf(recipients: readonly Id128[]): DispatchRecord {
  return {
    dispatchId: rid(),
    tenantId,
    shard: SHARD,
    messageId: rid(),
    conversationId: rid(),
    seq: 1n,
    createdAt: systemClock.nowMs(),
    recipients,
    events: [{ ordinal: 0, eventId: rid(), payload: PAYLOAD }],
  };
}

/** Totals of one side: entries, wall time inside the measured calls, pages, CPU of this process and of the server. */
class Tally {
  entries = 0;
  seconds = 0;
  pages = 0;
  clientCpuUs = 0;
  serverCpuUs = 0;
  /** Each page's wall time (ms): from `applyPage` called to its frontier written, i.e. every entry of the page visible. */
  readonly pageMs: number[] = [];

  get perSecond(): number {
    return this.entries / this.seconds;
  }

  /** p50 / p99 of the pages' wall times, ms. */
  pageLatency(): string {
    const v = [...this.pageMs].sort((a, b) => a - b);
    const at = (q: number): string => (v[Math.min(v.length - 1, Math.floor(q * v.length))] ?? 0).toFixed(1);
    return `p50 ${at(0.5)} ms, p99 ${at(0.99)} ms over ${v.length} pages`;
  }

  cpu(): string {
    return `${(this.clientCpuUs / this.entries).toFixed(1)} / ${(this.serverCpuUs / this.entries).toFixed(1)}`;
  }
}

async function serverCpuUs(admin: Redis): Promise<number> {
  const info = await admin.info('cpu');
  const field = (name: string): number => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
  return (field('used_cpu_user') + field('used_cpu_sys')) * 1e6;
}

/** Times one page (its wall time only) and adds the CPU the whole round used. */
async function meteredRound(admin: Redis, tally: Tally, pages: readonly (() => Promise<number>)[]): Promise<void> {
  const server0 = await serverCpuUs(admin);
  const client0 = process.cpuUsage();
  for (const page of pages) {
    const t0 = process.hrtime.bigint();
    tally.entries += await page();
    const ns = Number(process.hrtime.bigint() - t0);
    tally.seconds += ns / 1e9;
    tally.pageMs.push(ns / 1e6);
    tally.pages++;
  }
  const client = process.cpuUsage(client0);
  tally.clientCpuUs += client.user + client.system;
  tally.serverCpuUs += (await serverCpuUs(admin)) - server0;
}

/** One round of `shape` through `applyPage`, from `state.offset` on. */
function storeRound(store: MailboxStore, shape: Shape, state: { offset: bigint }): (() => Promise<number>)[] {
  return shape.round().map((dispatches) => {
    const fromOffset = state.offset;
    state.offset += BigInt(dispatches.length);
    const page: DispatchPage = {
      fromOffset,
      toOffset: state.offset - 1n,
      records: dispatches.map((recipients, i) => ({ offset: fromOffset + BigInt(i), record: recordOf(recipients) })),
    };
    return async () => (await store.applyPage(page)).entriesWritten;
  });
}

/** Raw key prefixes per user, computed once (raw pays no key hashing per entry). */
const rawPrefixes = new Map<Id128, string>();

/**
 * One round of `shape` written raw, one pipeline per page: per entry the ZADD of seq + entry bytes
 * into the user's day index and the ZADD GT of its bucket proof (member `<epoch>:<expiry>`, score
 * the seq's offset part), the two writes the store's layout needs per entry.
 */
function rawRound(
  raw: Redis,
  keys: Pick<RedisInspection, 'userKeyPrefix'>,
  shape: Shape,
  state: { offset: bigint },
  sample: Buffer,
): (() => Promise<number>)[] {
  return shape.round().map((dispatches) => {
    const fromOffset = state.offset;
    state.offset += BigInt(dispatches.length);
    return async () => {
      const now = systemClock.nowMs();
      const day = dayOf(now);
      const proofMember = `${EPOCH}:${entryExpiry(now, RETENTION_MS).toString(16).padStart(16, '0')}`;
      const pipeline = raw.pipeline();
      let entries = 0;
      dispatches.forEach((recipients, i) => {
        const seq = composeMailboxSeq(EPOCH, fromOffset + BigInt(i));
        const member = Buffer.concat([Buffer.from(seq.toString(16).padStart(16, '0')), sample]);
        const score = String(seq - epochStartSeq(EPOCH));
        for (const user of recipients) {
          let prefix = rawPrefixes.get(user);
          if (prefix === undefined) rawPrefixes.set(user, (prefix = keys.userKeyPrefix(tenantId, user)));
          pipeline.zadd(`${prefix}day:${EPOCH}:${day}`, 0, member);
          pipeline.zadd(`${prefix}proof:${day}`, 'GT', score, proofMember);
          entries++;
        }
      });
      await pipeline.exec();
      return entries;
    };
  });
}

/** INFO commandstats: calls and µs per command (the bench's own INFO / CONFIG left out). */
async function commandStats(admin: Redis): Promise<Map<string, { calls: number; usec: number }>> {
  const info = await admin.info('commandstats');
  const stats = new Map<string, { calls: number; usec: number }>();
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm))
    if (!/^(info|config)/.test(m[1]!)) stats.set(m[1]!, { calls: Number(m[2]), usec: Number(m[3]) });
  return stats;
}

/** Adds the commandstats delta `after − before` into `into`. */
function addDelta(
  into: Map<string, { calls: number; usec: number }>,
  before: Map<string, { calls: number; usec: number }>,
  after: Map<string, { calls: number; usec: number }>,
): void {
  for (const [name, a] of after) {
    const b = before.get(name) ?? { calls: 0, usec: 0 };
    const t = into.get(name) ?? { calls: 0, usec: 0 };
    into.set(name, { calls: t.calls + a.calls - b.calls, usec: t.usec + a.usec - b.usec });
  }
}

const totalCalls = (m: Map<string, { calls: number; usec: number }>): number => [...m.values()].reduce((s, v) => s + v.calls, 0);

/**
 * "cmd calls/entry × µs/call = µs/entry" for every command the side ran, costliest first, after the
 * total: a script's µs include the commands it runs (counted again under their own names), so a side
 * that ran scripts totals the scripts only.
 */
function profile(m: Map<string, { calls: number; usec: number }>, entries: number): string {
  const rows = [...m].filter(([, v]) => v.calls > 0).sort((a, b) => b[1].usec - a[1].usec);
  const scripts = rows.filter(([k]) => /^eval/.test(k));
  const sum = (rs: typeof rows): number => rs.reduce((s, [, v]) => s + v.usec, 0) / entries;
  const list = rows.map(([k, v]) => `${k} ${(v.calls / entries).toFixed(2)}×${(v.usec / v.calls).toFixed(1)}=${(v.usec / entries).toFixed(1)}`).join(' ');
  if (scripts.length === 0) return `${sum(rows).toFixed(1)} µs/entry: ${list}`;
  // commandstats counts a script's inner commands again under their own names: with plain commands
  // beside the scripts (the warm users' plain path) the two totals overlap by those inner commands
  return (
    `scripts ${sum(scripts).toFixed(1)} µs/entry, commands ${sum(rows.filter(([k]) => !/^eval/.test(k))).toFixed(1)} µs/entry ` +
    `(the scripts' inner commands are in both): ${list}`
  );
}

const PLAIN_PATH = process.env['QIM_BENCH_PLAIN_PATH'] !== '0';

async function main(): Promise<void> {
  const tag = randomBytes(4).toString('hex');
  const cfg = backendConfigFromEnv('redis');
  if (typeof cfg.redisUrl !== 'string') throw new Error('redis-mailbox measures one server (QIM_REDIS_URL): its raw side is one explicit pipeline per page');
  const tuning = { plainPath: PLAIN_PATH, ...(CONCURRENCY === undefined ? {} : { applyConcurrency: CONCURRENCY }) };
  const stores = await openTestStores({ ...cfg, namespace: `qimbench-${tag}` }, { clock: systemClock, tuning });
  // the raw side's namespace: its kit names the very keys (bucket tags) the store writes, and deletes them at the end
  const rawSide = await openTestStores({ ...cfg, namespace: `qimbench-raw-${tag}` }, { clock: systemClock });
  const [rawClient, admin] = (await Promise.all([connectRawRedis(cfg), connectRawRedis(cfg)])) as [Redis, Redis];
  const version = /^redis_version:(.*)$/m.exec(await admin.info('server'))?.[1]?.trim() ?? '?';
  const aof =
    /^aof_enabled:(\d)/m.exec(await admin.info('persistence'))?.[1] === '1'
      ? `AOF on (appendfsync ${String(((await admin.config('GET', 'appendfsync')) as string[])[1])})`
      : 'AOF off';
  const sample = encodeMailboxEntry({
    tenantId,
    userId: rid(),
    mailboxSeq: composeMailboxSeq(EPOCH, 0n),
    createdAt: 0n,
    expiresAt: 0n,
    events: [{ ordinal: 0, eventId: rid(), payload: PAYLOAD }],
  });
  console.log(
    `# machine: ${cpus().length} CPUs, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}; redis ${version}, ${aof}; node ${process.version}`,
  );
  console.log(
    '# applyPage vs raw pipelined ZADD (entry into its day index) + ZADD GT (bucket proof) of the same keys ' +
      `(${SECONDS}s each side, alternating rounds, same server ${stores.where.replace(/ namespace .*$/, '')}, ` +
      `${CONCURRENCY ?? "the store's default"} append calls in flight, warm users' plain path ${PLAIN_PATH ? 'on' : 'off'})`,
  );
  console.log(
    'shape | cold entries/s | warm entries/s | raw entries/s | warm/raw | cold/raw | client calls/page | server cmds/entry | ' +
      'CPU µs/entry client / server: warm | raw',
  );
  try {
    for (const shape of [oneBigDispatch(), manySmallDispatches(100), manySmallDispatches(DEFAULT_MAILBOX_PAGE_RECORDS)]) {
      const gc = { entryRetentionMs: RETENTION_MS, dispatchDedupeMs: 86_400_000n };
      const store = stores.mailboxStore({ shard: SHARD, epoch: EPOCH }, gc);
      const state = { offset: ((await store.frontier()).offset ?? -1n) + 1n };
      const rawState = { offset: 0n };
      const cold = new Tally();
      await meteredRound(admin, cold, storeRound(store, shape, state));
      const [warm, raw] = [new Tally(), new Tally()];
      let calls = 0;
      const [warmStats, rawStats] = [new Map<string, { calls: number; usec: number }>(), new Map<string, { calls: number; usec: number }>()];
      while (warm.seconds < SECONDS || raw.seconds < SECONDS) {
        if (warm.seconds < SECONDS) {
          const [calls0, stats0] = [stores.inspect.mailboxStoreCommands(store), await commandStats(admin)];
          await meteredRound(admin, warm, storeRound(store, shape, state));
          calls += stores.inspect.mailboxStoreCommands(store) - calls0;
          addDelta(warmStats, stats0, await commandStats(admin));
        }
        if (raw.seconds < SECONDS) {
          const stats0 = await commandStats(admin);
          await meteredRound(admin, raw, rawRound(rawClient, rawSide.inspect, shape, rawState, sample));
          addDelta(rawStats, stats0, await commandStats(admin));
        }
      }
      const ratio = (t: Tally): string => (t.perSecond / raw.perSecond).toFixed(2);
      console.log(
        `${shape.name} | ${cold.perSecond.toFixed(0)} | ${warm.perSecond.toFixed(0)} | ${raw.perSecond.toFixed(0)} | ${ratio(warm)} | ${ratio(cold)} | ` +
          `${(calls / warm.pages).toFixed(1)} | ${(totalCalls(warmStats) / warm.entries).toFixed(1)} | ${warm.cpu()} | ${raw.cpu()}`,
      );
      console.log(
        '#   apply → visible (applyPage call → its frontier written: every entry of the page readable), ' +
          `warm: ${warm.pageLatency()}; cold: ${cold.pageLatency()}`,
      );
      console.log(`#   server profile, warm: ${profile(warmStats, warm.entries)}`);
      console.log(`#   server profile, raw:  ${profile(rawStats, raw.entries)}`);
    }
  } finally {
    await stores.close(); // each deletes its namespace's keys
    await rawSide.close();
    await Promise.all([rawClient.quit(), admin.quit()]);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
