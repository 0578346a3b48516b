/**
 * Benchmark of the Redis backend (run: tools/bench/run.sh redis-commit). The server as the services
 * take it: QIM_REDIS_URL, or QIM_REDIS_CLUSTER_NODES for a Redis Cluster (same parsing; the store
 * opened through `@qim/backends/testing`). On a cluster the pre-encoded raw, the floor and the
 * socket writes are not measured (they drive one connection's socket; a cluster client has one per
 * node: `n/a`), server CPU and commandstats are summed over the primaries.
 *
 * 1. Commit path without Kafka — `DurableMessageCommitter.send` with a publisher that answers at once:
 *    reserve → putRecord → markPublishedAndCommitted — at 1, 16 and 64 commits in flight, side by side
 *    with raw EVALSHA of a trivial script at the same in-flight count on the same server, sent two
 *    ways with the same client library: ioredis' own script command, and pre-encoded RESP bytes
 *    (the way the store now sends its scripts); the ratio is against the faster of the two.
 *    commits/s, p50/p99 latency, client and redis-server CPU per commit (INFO cpu delta: exact only
 *    while nothing else uses the server), and the ratios.
 *    Beside them the design floor (`commit-floor.ts`): the durable writes any implementation of the
 *    commit contract must make (7 commands in 3 single-tag scripts, 2 round trips, pre-encoded and
 *    corked like the store's), with none of the reads, checks, claims and expiries the store needs;
 *    "commit ÷ floor" is how much of the gap to raw is the store's own, "floor ÷ raw" what no
 *    implementation on this server and client could beat.
 * 2. Redis commands per commit: client round trips (socket writes of the store's connection — the
 *    socket's `_write`/`_writev` calls, so commands corked or auto-pipelined into one write count
 *    once), commands the store sent, and server-side commands (INFO commandstats delta, which
 *    includes the commands run inside scripts).
 *
 * Request ids are a random per-run prefix and a counter, bodies come from a pool of random ones:
 * generating random requests is not the store's work, and crypto per id was ~5 % of the client CPU.
 * (The mailbox side has its own benchmark: tools/bench/run.sh redis-mailbox.)
 *
 * Env: QIM_BENCH_SECONDS (per measurement, default 5). Keys live under a scratch namespace, deleted
 * at the end. The commandstats delta is exact only when nothing else uses the server meanwhile.
 */
import { createHash, randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { Command } from 'ioredis';
import type { Cluster, Redis } from 'ioredis';
import { DurableMessageCommitter, systemClock } from '@qim/store-core';
import type { Id128, SendRequest } from '@qim/store-core';
import { backendConfigFromEnv, connectRawRedis, openTestStores, redisServers } from '@qim/backends/testing';
import { FLOOR_SCRIPTS, encodeFloorCall, floorCommit } from './commit-floor';
import type { FloorCall, FloorScript } from './commit-floor';

const SECONDS = Number(process.env['QIM_BENCH_SECONDS'] ?? 5);
const IN_FLIGHT = [1, 16, 64];
const ID_PREFIX = randomBytes(8).toString('hex');
let ids = 0;
const rid = (): Id128 => `${ID_PREFIX}${(ids++).toString(16).padStart(16, '0')}` as Id128;
const BODIES = Array.from({ length: 64 }, () => randomBytes(256));

interface Result {
  readonly ops: number;
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
}

/** Runs `op` from `inFlight` concurrent loops for SECONDS; latency per op in ms. */
async function drive(inFlight: number, op: (worker: number) => Promise<unknown>): Promise<Result> {
  const latencies: number[] = [];
  const end = Date.now() + SECONDS * 1000;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: inFlight }, async (_, w) => {
      while (Date.now() < end) {
        const s = process.hrtime.bigint();
        await op(w);
        latencies.push(Number(process.hrtime.bigint() - s) / 1e6);
      }
    }),
  );
  const elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
  latencies.sort((a, b) => a - b);
  const pct = (p: number): number => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0;
  return { ops: latencies.length, perSecond: latencies.length / elapsed, p50: pct(0.5), p99: pct(0.99) };
}

/** The servers' CPU seconds so far (user + sys, main thread and children; a cluster: every primary), from INFO cpu. */
async function serverCpuSeconds(redis: Redis | Cluster): Promise<number> {
  let sum = 0;
  for (const server of redisServers(redis)) {
    const info = await server.info('cpu');
    sum += ['used_cpu_sys', 'used_cpu_user'].reduce((s, f) => s + Number(new RegExp(`^${f}:([0-9.]+)`, 'm').exec(info)?.[1] ?? NaN), 0);
  }
  return sum;
}

/** Calls per command so far (a cluster: summed over the primaries), from INFO commandstats. */
async function commandStats(redis: Redis | Cluster): Promise<Map<string, number>> {
  const calls = new Map<string, number>();
  for (const server of redisServers(redis)) {
    for (const m of (await server.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls.set(m[1]!, (calls.get(m[1]!) ?? 0) + Number(m[2]));
  }
  return calls;
}

function requestFor(tenantId: Id128, conversationId: Id128): SendRequest {
  return {
    tenantId,
    senderId: rid(),
    clientMessageId: rid(),
    conversationId,
    kind: 'normal',
    control: false,
    contentType: 'text/plain',
    body: BODIES[ids % BODIES.length]!,
    retention: { kind: 'default' },
  };
}

/** A command sent as fixed RESP bytes (no per-call encoding by the driver); Buffer reply. */
class EncodedCommand extends Command {
  constructor(private readonly bytes: Buffer) {
    super('evalsha');
  }

  override toWritable(): Buffer {
    return this.bytes;
  }
}

/** Sends pre-encoded commands on `client`, the writes of one event-loop turn corked into one socket write (as the store does). */
function corkedSender(client: Redis): (bytes: Buffer) => Promise<unknown> {
  const stream = (client as unknown as { stream: { cork(): void; uncork(): void } }).stream;
  let corked = false;
  return (bytes) => {
    if (!corked) {
      corked = true;
      stream.cork();
      setImmediate(() => {
        corked = false;
        stream.uncork();
      });
    }
    return client.sendCommand(new EncodedCommand(bytes)) as Promise<unknown>;
  };
}

/** Raw EVALSHA of `lua` (1 key) as pre-encoded bytes, one turn's writes corked into one socket write. */
function encodedEvalsha(client: Redis, lua: string, key: string): () => Promise<unknown> {
  const sha = createHash('sha1').update(lua).digest('hex');
  const bytes = Buffer.from(`*4\r\n$7\r\nevalsha\r\n$40\r\n${sha}\r\n$1\r\n1\r\n$${Buffer.byteLength(key)}\r\n${key}\r\n`);
  const send = corkedSender(client);
  return () => send(bytes);
}

/** Floor commits (`commit-floor.ts`) on their own connection, pre-encoded and corked per turn like the store's scripts. */
async function floorDriver(client: Redis, namespace: string): Promise<() => Promise<void>> {
  const shas = new Map<FloorScript, string>();
  for (const [name, lua] of Object.entries(FLOOR_SCRIPTS)) shas.set(name as FloorScript, String(await client.script('LOAD', lua)));
  const corked = corkedSender(client);
  const send = (call: FloorCall): Promise<unknown> => corked(encodeFloorCall(shas.get(call.script)!, call));
  let n = 0;
  return async () => {
    const body = BODIES[n % BODIES.length]!;
    const calls = floorCommit(namespace, n++, createHash('sha256').update(body).update(String(n)).digest(), body, Date.now());
    await Promise.all(calls.beforePublish.map(send));
    await send(calls.afterPublish);
  };
}

async function main(): Promise<void> {
  const namespace = `qimbench-${randomBytes(4).toString('hex')}`;
  const cfg = { ...backendConfigFromEnv('redis'), namespace };
  const cluster = typeof cfg.redisUrl !== 'string';
  const stores = await openTestStores(cfg, { clock: systemClock });
  const messages = stores.messages;
  const rawClient = await connectRawRedis(cfg);
  const floorClient = cluster ? null : ((await connectRawRedis(cfg)) as Redis);
  const admin = await connectRawRedis(cfg);
  rawClient.defineCommand('benchTrivial', { numberOfKeys: 1, lua: 'return 1' });
  const trivial = (rawClient as unknown as { benchTrivial(key: string): Promise<unknown> }).benchTrivial.bind(rawClient);
  const tenantId = rid();
  const conversations = Array.from({ length: 256 }, rid);
  let offset = 0n;
  const committer = new DurableMessageCommitter(messages, { publish: async () => ({ topic: 'qim.messages', partition: 0, offset: offset++ }) });
  let n = 0;
  const commit = async (): Promise<void> => {
    const request = requestFor(tenantId, conversations[n++ % conversations.length]!);
    await committer.send({ request, messageId: rid(), createdAt: systemClock.nowMs(), recipients: [request.senderId] });
  };
  const socketWrites = cluster ? null : stores.inspect.countMessageStoreSocketWrites();
  await trivial(`${namespace}:{warm}`);
  const trivialEncoded = cluster ? null : encodedEvalsha(rawClient as Redis, 'return 1', `${namespace}:{raw}`);
  await commit();
  const floor = floorClient === null ? null : await floorDriver(floorClient, namespace);
  await floor?.();
  const where = stores.where.replace(/ namespace .*$/, '');

  const first = redisServers(admin)[0]!;
  const version = /^redis_version:(.*)$/m.exec(await first.info('server'))?.[1]?.trim() ?? '?';
  const persistence = await first.info('persistence');
  const aof =
    /^aof_enabled:(\d)/m.exec(persistence)?.[1] === '1'
      ? `AOF on (appendfsync ${String(((await first.config('GET', 'appendfsync')) as string[])[1])})`
      : 'AOF off';
  console.log(
    `# machine: ${cpus().length} CPUs, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}; redis ${version}, ${aof}; node ${process.version}`,
  );
  console.log(
    `# Redis commit path vs raw EVALSHA (${SECONDS}s each, same server ${where}, one connection (or cluster client) each; ` +
      "raw = the faster of ioredis' script command (auto-pipelined) and pre-encoded bytes (corked))",
  );
  console.log(
    'in-flight | commits/s | p50 ms | p99 ms | CPU µs/commit client / redis-server | raw EVALSHA/s ioredis / pre-encoded | ' +
      'raw p50 ms | raw p99 ms | commit/raw throughput (best raw; ioredis raw) | p50 ratio | ' +
      'floor commits/s (CPU µs client / redis-server) | commit ÷ floor | floor ÷ raw (best; ioredis)',
  );
  const fmt = (v: number | null, digits: number): string => (v === null ? 'n/a' : v.toFixed(digits));
  for (const inFlight of IN_FLIGHT) {
    const cpu0 = process.cpuUsage();
    const server0 = await serverCpuSeconds(admin);
    const c = await drive(inFlight, commit);
    const server = (await serverCpuSeconds(admin)) - server0;
    const cpu = process.cpuUsage(cpu0);
    const driver = await drive(inFlight, () => trivial(`${namespace}:{raw}`));
    const encoded = trivialEncoded === null ? null : await drive(inFlight, trivialEncoded);
    const r = encoded !== null && encoded.perSecond > driver.perSecond ? encoded : driver;
    let f: Result | null = null;
    let floorCpuUs: number | null = null;
    let floorServerUs: number | null = null;
    if (floor !== null) {
      const floorCpu0 = process.cpuUsage();
      const floorServer0 = await serverCpuSeconds(admin);
      f = await drive(inFlight, floor);
      const floorServer = (await serverCpuSeconds(admin)) - floorServer0;
      const floorCpu = process.cpuUsage(floorCpu0);
      floorCpuUs = (floorCpu.user + floorCpu.system) / f.ops;
      floorServerUs = (floorServer * 1e6) / f.ops;
    }
    console.log(
      `${inFlight} | ${c.perSecond.toFixed(0)} | ${c.p50.toFixed(2)} | ${c.p99.toFixed(2)} | ` +
        `${((cpu.user + cpu.system) / c.ops).toFixed(0)} / ${((server * 1e6) / c.ops).toFixed(0)} | ` +
        `${driver.perSecond.toFixed(0)} / ${fmt(encoded?.perSecond ?? null, 0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ` +
        `${(c.perSecond / r.perSecond).toFixed(3)}; ${(c.perSecond / driver.perSecond).toFixed(3)} | ${(c.p50 / r.p50).toFixed(1)}× | ` +
        `${fmt(f?.perSecond ?? null, 0)} (${fmt(floorCpuUs, 0)} / ${fmt(floorServerUs, 0)}) | ` +
        `${fmt(f === null ? null : c.perSecond / f.perSecond, 3)} | ` +
        `${fmt(f === null ? null : f.perSecond / r.perSecond, 3)}; ${fmt(f === null ? null : f.perSecond / driver.perSecond, 3)}`,
    );
  }

  const COUNTED = 500;
  const before = await commandStats(admin);
  const serverCpu0 = await serverCpuSeconds(admin);
  const io0 = stores.inspect.messageStoreCommands();
  const writes0 = socketWrites?.count() ?? 0;
  const clientCpu0 = process.cpuUsage();
  for (let i = 0; i < COUNTED; i++) await commit();
  const clientCpu = process.cpuUsage(clientCpu0);
  const serverCpu = (await serverCpuSeconds(admin)) - serverCpu0;
  const roundTrips = socketWrites === null ? null : (socketWrites.count() - writes0) / COUNTED;
  const clientCalls = (stores.inspect.messageStoreCommands() - io0) / COUNTED;
  const after = await commandStats(admin);
  const deltas = [...after]
    .map(([cmd, calls]) => [cmd, calls - (before.get(cmd) ?? 0)] as const)
    .filter(([cmd, d]) => d > 0 && !/^(info|config|cluster)/.test(cmd));
  const serverTotal = deltas.reduce((s, [, d]) => s + d, 0) / COUNTED;
  console.log(`\n# Redis commands per commit (${COUNTED} sequential commits)`);
  console.log(
    `client round trips (socket writes) per commit: ${fmt(roundTrips, 2)}; commands sent per commit: ${clientCalls.toFixed(2)}; ` +
      `server commands per commit (incl. inside scripts): ${serverTotal.toFixed(2)}`,
  );
  console.log(
    deltas
      .sort((a, b) => b[1] - a[1])
      .map(([cmd, d]) => `${cmd}=${(d / COUNTED).toFixed(2)}`)
      .join(' '),
  );
  console.log(
    `CPU per commit: client ${((clientCpu.user + clientCpu.system) / COUNTED).toFixed(0)} µs, ` +
      `redis-server ${((serverCpu * 1e6) / COUNTED).toFixed(0)} µs (INFO cpu delta; exact only while nothing else uses the server)`,
  );

  await stores.close(); // deletes the namespace's keys (every primary of a cluster)
  await Promise.all([rawClient.quit(), floorClient?.quit(), admin.quit()]);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
