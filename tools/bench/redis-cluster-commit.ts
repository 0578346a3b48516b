/**
 * The Redis commit on a Redis Cluster, with and without replica acks (ADR-0038), beside the same
 * commit on the standalone server: needs QIM_REDIS_URL and a cluster, QIM_REDIS_CLUSTER_NODES (as the
 * services take it) or else QIM_TEST_REDIS_CLUSTER_NODES (from `tools/infra/infra env`), both parsed
 * by the Redis backend's own rules (run: `tools/bench/run.sh redis-cluster-commit [--rounds N] [--in-flight N]`).
 *
 * Four targets, alternated in one sitting (A/B per round, the order rotating each round):
 *   standalone          the store on one server (pre-encoded EVALSHA, corked writes)
 *   cluster             the store on a Cluster client (the driver's script command per node, auto-pipelined)
 *   cluster+WAIT 1      the same with `replicaAcks { min: 1 }` (WAIT after putRecord on the two written primaries)
 * each against its raw baseline on a client of the same kind (its own connection or cluster client,
 * beside the store's): a trivial single-key EVALSHA (`return 1`) at the same in-flight. The stores
 * open through `@qim/backends/testing`. Prints one line per target and round: commits/s, p50/p99 ms, raw ops/s, commit ÷ raw.
 * `--json FILE` also writes the rows (for the chart). Env: QIM_BENCH_SECONDS (per measurement, default 3).
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { DurableMessageCommitter, systemClock } from '@qim/store-core';
import type { Id128, SendRequest } from '@qim/store-core';
import { backendConfigFromEnv, connectRawRedis, openTestStores } from '@qim/backends/testing';
import { flag } from './in-flight';

const SECONDS = Number(process.env['QIM_BENCH_SECONDS'] ?? 3);
const ID_PREFIX = randomBytes(8).toString('hex');
let ids = 0;
const rid = (): Id128 => `${ID_PREFIX}${(ids++).toString(16).padStart(16, '0')}` as Id128;
const BODIES = Array.from({ length: 64 }, () => randomBytes(256));

interface Result {
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
}

async function drive(inFlight: number, op: () => Promise<unknown>): Promise<Result> {
  const latencies: number[] = [];
  const end = Date.now() + SECONDS * 1000;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (Date.now() < end) {
        const s = process.hrtime.bigint();
        await op();
        latencies.push(Number(process.hrtime.bigint() - s) / 1e6);
      }
    }),
  );
  const elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
  latencies.sort((a, b) => a - b);
  const pct = (p: number): number => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0;
  return { perSecond: latencies.length / elapsed, p50: pct(0.5), p99: pct(0.99) };
}

interface Target {
  readonly name: string;
  commit(): Promise<void>;
  raw(): Promise<unknown>;
  close(): Promise<void>;
}

/** The store of `env` (the Redis backend's variables) under a scratch namespace, and its raw baseline. */
async function openTarget(name: string, env: Record<string, string>): Promise<Target> {
  const namespace = `qimbench-${randomBytes(4).toString('hex')}`;
  const cfg = { ...backendConfigFromEnv('redis', env), namespace };
  const stores = await openTestStores(cfg, { clock: systemClock });
  const store = stores.messages;
  const client = await connectRawRedis(cfg);
  client.defineCommand('benchTrivial', { numberOfKeys: 1, lua: 'return 1' });
  const trivial = (client as unknown as { benchTrivial(key: string): Promise<unknown> }).benchTrivial.bind(client);
  const tenantId = rid();
  const conversations = Array.from({ length: 256 }, rid);
  let offset = 0n;
  const committer = new DurableMessageCommitter(store, { publish: async () => ({ topic: 'qim.messages', partition: 0, offset: offset++ }) });
  let n = 0;
  const request = (): SendRequest => ({
    tenantId,
    senderId: rid(),
    clientMessageId: rid(),
    conversationId: conversations[n++ % conversations.length]!,
    kind: 'normal',
    control: false,
    contentType: 'text/plain',
    body: BODIES[ids % BODIES.length]!,
    retention: { kind: 'default' },
  });
  return {
    name,
    commit: async () => {
      const r = request();
      await committer.send({ request: r, messageId: rid(), createdAt: systemClock.nowMs(), recipients: [r.senderId] });
    },
    raw: () => trivial(`${namespace}:{raw${n++ % 256}}`),
    close: async () => {
      // the scratch namespace goes (every primary of a cluster), then the connections
      await stores.close();
      await client.quit();
    },
  };
}

async function main(): Promise<void> {
  const url = process.env['QIM_REDIS_URL'];
  const nodes = process.env['QIM_REDIS_CLUSTER_NODES'] || process.env['QIM_TEST_REDIS_CLUSTER_NODES'];
  if (!url || !nodes)
    throw new Error(
      'QIM_REDIS_URL and QIM_REDIS_CLUSTER_NODES (or QIM_TEST_REDIS_CLUSTER_NODES) must be set: eval "$(tools/infra/infra env)" after infra up redis-cluster',
    );
  const rounds = flag('rounds', 3);
  const inFlight = flag('in-flight', 16);
  const jsonAt = process.argv.indexOf('--json');
  const targets = [
    await openTarget('standalone', { QIM_REDIS_URL: url }),
    await openTarget('cluster', { QIM_REDIS_CLUSTER_NODES: nodes }),
    await openTarget('cluster+WAIT 1', { QIM_REDIS_CLUSTER_NODES: nodes, QIM_REDIS_MIN_REPLICA_ACKS: '1', QIM_REDIS_REPLICA_WAIT_MS: '1000' }),
  ];
  for (const t of targets) {
    await t.commit();
    await t.raw();
  }
  console.log(
    `# machine: ${cpus().length} CPUs, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}; node ${process.version}; ${SECONDS}s per measurement, ${inFlight} in flight`,
  );
  console.log('round | target | commits/s | p50 ms | p99 ms | raw EVALSHA/s | commit ÷ raw');
  const rows: { round: number; target: string; commits: number; p50: number; p99: number; raw: number }[] = [];
  for (let round = 1; round <= rounds; round++) {
    const order = targets.map((_, i) => targets[(i + round - 1) % targets.length]!);
    for (const t of order) {
      const c = await drive(inFlight, t.commit);
      const r = await drive(inFlight, t.raw);
      rows.push({ round, target: t.name, commits: c.perSecond, p50: c.p50, p99: c.p99, raw: r.perSecond });
      console.log(
        `${round} | ${t.name} | ${c.perSecond.toFixed(0)} | ${c.p50.toFixed(2)} | ${c.p99.toFixed(2)} | ` +
          `${r.perSecond.toFixed(0)} | ${(c.perSecond / r.perSecond).toFixed(3)}`,
      );
    }
  }
  console.log(
    `# load after: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  if (jsonAt >= 0) writeFileSync(process.argv[jsonAt + 1]!, JSON.stringify(rows, null, 1));
  for (const t of targets) await t.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
