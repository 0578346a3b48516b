/**
 * Benchmark of the Scylla message store's commit path (run: eval "$(tools/infra/infra env)";
 * tools/bench/run.sh scylla-commit). Needs QIM_TEST_SCYLLA_ADDR/KEYSPACE/DC/RF; works in a scratch
 * keyspace `<QIM_TEST_SCYLLA_KEYSPACE>_bench_<random>` (so the keyspace variable must start `qim_`)
 * created by `migrate` and dropped at the end. The store opens through `@qim/backends/testing` (the
 * Scylla test kit); the raw statements run on the kit's session, its request tally counts statements.
 *
 * Side by side, same driver, same session, same in-flight count (1, 8, 64):
 * - commit = `DurableMessageCommitter.send` with a publisher that answers at once (no Kafka):
 *   reserve → putRecord → markPublishedAndCommitted, over 1 000 conversations and over one hot
 *   conversation (hot ÷ spread is the grouped-allocation target);
 * - raw prepared INSERT of one 256-byte row (LOCAL_QUORUM);
 * - raw prepared INSERT … IF NOT EXISTS of one row (LOCAL_QUORUM + LOCAL_SERIAL).
 * Printed: commits/s (ops/s), p50/p99 latency, errors, ratios to both raw baselines, LWTs per
 * commit counted from what the driver really executed (a request tracker), seq CAS rounds per
 * commit and the mean number of seqs one won CAS issued (the group size), and the 1-minute load
 * average when each row was measured (the machine is shared).
 * Env: QIM_BENCH_SECONDS (per measurement, default 5); QIM_BENCH_IN_FLIGHT (comma list, default 1,8,64).
 */
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { DurableMessageCommitter, systemClock } from '@qim/store-core';
import type { Id128, SendRequest } from '@qim/store-core';
import { openTestStores, scyllaTestBackendConfig } from '@qim/backends/testing';

const SECONDS = Number(process.env['QIM_BENCH_SECONDS'] ?? 5);
const IN_FLIGHT = (process.env['QIM_BENCH_IN_FLIGHT'] ?? '1,8,64').split(',').map(Number);
const rid = (): Id128 => randomBytes(16).toString('hex') as Id128;

interface Result {
  readonly ops: number;
  readonly errors: number;
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
}

async function drive(inFlight: number, op: () => Promise<unknown>): Promise<Result> {
  const latencies: number[] = [];
  let errors = 0;
  const end = Date.now() + SECONDS * 1000;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (Date.now() < end) {
        const s = process.hrtime.bigint();
        try {
          await op();
          latencies.push(Number(process.hrtime.bigint() - s) / 1e6);
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
  latencies.sort((a, b) => a - b);
  const pct = (p: number): number => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0;
  return { ops: latencies.length, errors, perSecond: latencies.length / elapsed, p50: pct(0.5), p99: pct(0.99) };
}

const requestFor = (tenantId: Id128, conversationId: Id128): SendRequest => ({
  tenantId,
  senderId: rid(),
  clientMessageId: rid(),
  conversationId,
  kind: 'normal',
  control: false,
  contentType: 'text/plain',
  body: randomBytes(256),
  retention: { kind: 'default' },
});

const fmt = (r: Result): string => `${r.perSecond.toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.errors}`;
const load = (): string => (loadavg()[0] ?? 0).toFixed(1);

async function main(): Promise<void> {
  const cfg = scyllaTestBackendConfig(process.env, `_bench_${randomBytes(3).toString('hex')}`);
  const stores = await openTestStores(cfg, { clock: systemClock, scratch: true });
  const { inspect } = stores;
  const counter = inspect.requests;
  const ks = cfg.keyspace;
  try {
    await inspect.execute(`CREATE TABLE IF NOT EXISTS ${ks}.bench_raw (k blob PRIMARY KEY, v blob)`, [], { executionProfile: 'write' });
    const store = stores.messages;
    const tenantId = rid();
    const spread = Array.from({ length: 1000 }, rid);
    const hot = rid();
    let n = 0;
    let offset = 0n;
    const committer = new DurableMessageCommitter(store, { publish: async () => ({ topic: 'qim.messages', partition: 0, offset: offset++ }) });
    const commit = (conversation: () => Id128) => async (): Promise<void> => {
      const request = requestFor(tenantId, conversation());
      await committer.send({ request, messageId: rid(), createdAt: systemClock.nowMs(), recipients: [request.senderId] });
    };
    const spreadCommit = commit(() => spread[n++ % spread.length]!);
    const hotCommit = commit(() => hot);
    const value = randomBytes(256);
    const rawInsert = () =>
      inspect.execute(`INSERT INTO ${ks}.bench_raw (k, v) VALUES (?, ?)`, [randomBytes(16), value], {
        prepare: true,
        executionProfile: 'write',
        isIdempotent: true,
      });
    const rawLwt = () =>
      inspect.execute(`INSERT INTO ${ks}.bench_raw (k, v) VALUES (?, ?) IF NOT EXISTS`, [randomBytes(16), value], { prepare: true, executionProfile: 'lwt' });

    for (const warm of [spreadCommit, hotCommit, rawInsert, rawLwt]) await warm();
    const lwtsOf = async (
      inFlight: number,
      op: () => Promise<unknown>,
    ): Promise<{ r: Result; lwt: number; stmts: number; seqRounds: number; group: number }> => {
      const seqs0 = inspect.messageStoreSeqs();
      const [l0, a0] = [counter.lwts, counter.requests];
      const r = await drive(inFlight, op);
      const done = Math.max(1, r.ops);
      const seqs = inspect.messageStoreSeqs();
      const group = (seqs.groups.seqs - seqs0.groups.seqs) / Math.max(1, seqs.groups.rounds - seqs0.groups.rounds);
      return { r, lwt: (counter.lwts - l0) / done, stmts: (counter.requests - a0) / done, seqRounds: (seqs.lwtRounds - seqs0.lwtRounds) / done, group };
    };

    console.log(
      `# machine: ${cpus().length} CPUs, load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}; ${inspect.dialect} at ${cfg.hosts.join(',')} RF ${cfg.replicationFactor}; node ${process.version}`,
    );
    console.log(
      `# ${SECONDS}s per measurement; one session; commit = committer.send: reserve+putRecord+markPublishedAndCommitted (no Kafka); ` +
        'errors = operations that threw',
    );
    console.log(
      'in-flight | scenario | ops/s | p50 ms | p99 ms | errors | LWT/op | statements/op | seq CAS rounds/op | seqs per won CAS | ' +
        'vs raw INSERT (ops/s ratio) | vs raw LWT (ops/s ratio) | load',
    );
    for (const inFlight of IN_FLIGHT) {
      const raw = await drive(inFlight, rawInsert);
      const lwt = await drive(inFlight, rawLwt);
      console.log(`${inFlight} | raw prepared INSERT | ${fmt(raw)} | 0 | 1 | - | - | 1 | - | ${load()}`);
      console.log(`${inFlight} | raw INSERT IF NOT EXISTS | ${fmt(lwt)} | 1 | 1 | - | - | - | 1 | ${load()}`);
      let spreadRate = 0;
      for (const [name, op] of [
        ['commit, 1000 conversations', spreadCommit],
        ['commit, 1 hot conversation', hotCommit],
      ] as const) {
        const m = await lwtsOf(inFlight, op);
        console.log(
          `${inFlight} | ${name} | ${fmt(m.r)} | ${m.lwt.toFixed(2)} | ${m.stmts.toFixed(2)} | ${m.seqRounds.toFixed(2)} | ${m.group.toFixed(1)} | ` +
            `${(m.r.perSecond / raw.perSecond).toFixed(3)} | ${(m.r.perSecond / lwt.perSecond).toFixed(3)} | ${load()}`,
        );
        if (op === spreadCommit) spreadRate = m.r.perSecond;
        else console.log(`# ${inFlight} in flight: hot ÷ spread = ${(m.r.perSecond / Math.max(1, spreadRate)).toFixed(2)}`);
      }
    }
  } finally {
    await stores.close(); // drops the scratch keyspace
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
