/**
 * Idle long polls (issue 28 item 8; run: tools/bench/run.sh long-poll [options]).
 *
 * One mailbox reader in this process over a real Redis, `--polls` devices (default 10,000) spread
 * over `--shards` shards (default 8), of which `--owned` (default 4) are owned here (their frontier
 * in memory, as the shard worker keeps it) and the rest applied "elsewhere" (read from the store).
 * Nothing is written while it measures: every device long-polls (`--wait-ms`, default 30,000) from
 * its cursor and asks again when answered, like an idle app. Prints one JSON line per run: store
 * reads per second by kind (`frontier`, `rangeScan`; counted on the store object), syncs answered
 * and failed per second, CPU of this process (ms per second), and the Redis server's CPU (INFO cpu
 * delta: exact only when nothing else uses the server — `--ab` starts its own).
 *
 *   --ab <git-ref> [--rounds N]  A/B in one sitting: exports <git-ref> (e.g. main) to a temp folder,
 *       starts a private redis-server, then alternates that build and this tree, N rounds (default 3),
 *       this same script run by each build's own code; prints every round and the medians.
 *   --redis-url URL  (default QIM_REDIS_URL; one server: the Redis-CPU figure and --ab need one)  --seconds S (measured window, default 20)
 *   --poll-ms MS (the reader's pollMs, default 100)
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Id128, MailboxStore, MessageRecord } from '@qim/store-core';
import { FrontierBoard, MailboxReader, ShardPlacements, dispatchRecordsOf } from '@qim/mailbox-runtime';
import { openMailboxBackend } from '@qim/backends';
// a plain driver client for INFO and the clean-up: the script is also run by older builds (`--ab`), so it imports only what every build has
import { Redis } from 'ioredis';

const args = process.argv.slice(2);
const opt = (name: string, def: string): string => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1]! : def;
};
const num = (name: string, def: number): number => {
  const v = Number(opt(name, String(def)));
  if (!Number.isFinite(v) || v < 0) throw new Error(`--${name} must be a number ≥ 0`);
  return v;
};
const EPOCH = 1;
const rid = (): Id128 => randomBytes(16).toString('hex') as Id128;

interface Result {
  readonly build: string;
  readonly polls: number;
  readonly seconds: number;
  readonly frontierReadsPerS: number;
  readonly rangeReadsPerS: number;
  readonly answeredPerS: number;
  readonly failedPerS: number;
  readonly cpuMsPerS: number;
  readonly redisCpuMsPerS: number;
  readonly load1: number;
}

async function redisCpuMs(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  return 1000 * ['used_cpu_sys', 'used_cpu_user'].reduce((s, f) => s + Number(new RegExp(`^${f}:([0-9.]+)`, 'm').exec(info)?.[1] ?? NaN), 0);
}

function message(tenantId: Id128, seq: bigint): MessageRecord {
  return {
    tenantId,
    conversationId: rid(),
    seq,
    messageId: rid(),
    senderId: rid(),
    clientMessageId: rid(),
    kind: 'normal',
    control: false,
    contentType: 'text/plain',
    body: Buffer.from('seed'),
    createdAt: BigInt(Date.now()),
    retention: { kind: 'default' },
  };
}

async function runOnce(build: string): Promise<Result> {
  const redisUrl = opt('redis-url', process.env['QIM_REDIS_URL'] ?? '');
  if (!redisUrl) throw new Error('--redis-url or QIM_REDIS_URL is required');
  const polls = num('polls', 10_000);
  const shards = num('shards', 8);
  const owned = num('owned', 4);
  const waitMs = num('wait-ms', 30_000);
  const seconds = num('seconds', 20);
  const pollMs = num('poll-ms', 100);
  const namespace = `lpb${randomBytes(4).toString('hex')}`;
  const binding = { epoch: EPOCH, gc: { entryRetentionMs: 86_400_000n, dispatchDedupeMs: 86_400_000n }, applyConcurrency: 4 };
  const backend = await openMailboxBackend({ kind: 'redis', redisUrl, namespace }, 'test', binding, () => undefined);
  const redis = new Redis(redisUrl);
  const reads = { frontier: 0, rangeScan: 0 };
  const counted = new Map<number, MailboxStore>();
  const storeFor = async (shard: number): Promise<MailboxStore> => {
    let s = counted.get(shard);
    if (s === undefined) {
      const real = await backend.storeFor(shard);
      s = new Proxy(real, {
        get(target, prop, receiver) {
          const v = Reflect.get(target, prop, receiver) as unknown;
          if ((prop === 'frontier' || prop === 'rangeScan') && typeof v === 'function') {
            return (...a: unknown[]) => {
              reads[prop] += 1;
              return (v as (...x: unknown[]) => unknown).apply(target, a);
            };
          }
          return v;
        },
      });
      counted.set(shard, s);
    }
    return s;
  };
  const tenantId = rid();
  const placements = new ShardPlacements(shards);
  // One applied page per shard, so every frontier is an offset (as in a running system).
  for (let shard = 0; shard < shards; shard++) {
    let u = rid();
    while (placements.of(tenantId, u) !== shard) u = rid();
    const record = dispatchRecordsOf({ record: message(tenantId, 1n), recipients: [u] }, shards)[0]!;
    await (await backend.storeFor(shard)).applyPage({ fromOffset: 0n, toOffset: 0n, records: [{ offset: 0n, record }] });
  }
  const board = new FrontierBoard();
  board.own(Array.from({ length: owned }, (_, i) => i));
  for (let s = 0; s < owned; s++) board.learn(s, (await (await backend.storeFor(s)).frontier()).offset);
  // A generous store bound: on a shared, overloaded machine a starved process would otherwise turn slow answers into 503s and retries.
  const reader = new MailboxReader({ storeFor, shardCount: shards, epoch: EPOCH, board, pollMs, storeBoundMs: 60_000 });

  let stop = false;
  let answered = 0;
  let failed = 0;
  const device = async (i: number): Promise<void> => {
    // Devices start spread over one wait, so their polls end spread too (an idle app population).
    await new Promise((r) => setTimeout(r, (i / polls) * waitMs));
    const user = rid();
    let after: bigint | null = null;
    while (!stop) {
      try {
        const page = await reader.sync({ tenantId, actingUser: user, userId: user, after, limit: 100, maxBytes: 1 << 20, waitMs: after === null ? 0 : waitMs });
        after = page.nextAfter;
        answered += 1;
      } catch (err) {
        if (failed === 0) console.error(`first failed sync: ${String(err)}`);
        failed += 1;
        await new Promise((r) => setTimeout(r, 1_000)); // a device backs off after a failure
      }
    }
  };
  const devices = Array.from({ length: polls }, (_, i) => device(i));
  await new Promise((r) => setTimeout(r, waitMs + 1_000)); // every device started and waiting
  const r0 = { ...reads };
  const a0 = answered;
  const f0 = failed;
  const cpu0 = process.cpuUsage();
  const rc0 = await redisCpuMs(redis);
  const t0 = process.hrtime.bigint();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  const rc = (await redisCpuMs(redis)) - rc0;
  const result: Result = {
    build,
    polls,
    seconds: Math.round(elapsed * 10) / 10,
    frontierReadsPerS: Math.round((reads.frontier - r0.frontier) / elapsed),
    rangeReadsPerS: Math.round((reads.rangeScan - r0.rangeScan) / elapsed),
    answeredPerS: Math.round((answered - a0) / elapsed),
    failedPerS: Math.round((failed - f0) / elapsed),
    cpuMsPerS: Math.round((cpu.user + cpu.system) / 1000 / elapsed),
    redisCpuMsPerS: Math.round(rc / elapsed),
    load1: Math.round(loadavg()[0]! * 10) / 10,
  };
  stop = true;
  board.close();
  await Promise.allSettled(devices);
  const keys = await redis.keys(`*${namespace}*`);
  for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
  redis.disconnect();
  await backend.close();
  return result;
}

async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address();
      srv.close(() => res(typeof a === 'object' && a !== null ? a.port : 0));
    });
  });
}

/** Runs `run.sh long-poll` of the tree at `root` with this run's options (minus --ab), returns its JSON line. */
function runBuild(root: string, build: string, redisUrl: string): Result {
  const pass = args.filter((_, i) => !['--ab', '--rounds'].includes(args[i]!) && !['--ab', '--rounds'].includes(args[i - 1] ?? ''));
  const out = execFileSync(join(root, 'tools/bench/run.sh'), ['long-poll', ...pass, '--redis-url', redisUrl, '--build', build], {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  const line = out.trim().split('\n').pop()!;
  return JSON.parse(line) as Result;
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function ab(ref: string): Promise<void> {
  const root = execFileSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8' }).trim();
  const rounds = num('rounds', 3);
  const before = mkdtempSync(join(tmpdir(), 'qim-long-poll-before-'));
  execFileSync('bash', ['-c', `git -C "$0" archive "$1" | tar -x -C "$2"`, root, ref, before]);
  symlinkSync(join(root, 'node_modules'), join(before, 'node_modules'));
  mkdirSync(join(before, 'tools/bench'), { recursive: true });
  cpSync(join(root, 'tools/bench/long-poll.ts'), join(before, 'tools/bench/long-poll.ts')); // the same script, run by the other build's libraries
  const refCommit = execFileSync('git', ['-C', root, 'rev-parse', '--short', ref], { encoding: 'utf8' }).trim();
  const hereCommit = execFileSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  const dirty = execFileSync('git', ['-C', root, 'status', '--porcelain', '--', 'libs'], { encoding: 'utf8' }).trim() !== '';
  if (spawnSync('redis-server', ['--version']).status !== 0) throw new Error('redis-server not on PATH');
  const port = await freePort();
  const redisDir = mkdtempSync(join(tmpdir(), 'qim-long-poll-redis-'));
  const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', redisDir, '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const url = `redis://127.0.0.1:${port}`;
  try {
    for (let i = 0; i < 50; i++) {
      const probe = spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' });
      if (probe.stdout.trim() === 'PONG') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    console.log(
      `# long-poll A/B: before = ${ref} (${refCommit}), ` +
        `after = this tree (${hereCommit}${dirty ? ', uncommitted changes in libs' : ''}); private redis-server :${port}`,
    );
    const all: Result[] = [];
    for (let round = 1; round <= rounds; round++) {
      const order: [string, string][] =
        round % 2 === 1
          ? [
              [before, `before ${refCommit}`],
              [root, `after ${hereCommit}`],
            ]
          : [
              [root, `after ${hereCommit}`],
              [before, `before ${refCommit}`],
            ];
      for (const [tree, build] of order) {
        const r = runBuild(tree, build, url);
        all.push(r);
        console.log(JSON.stringify({ round, ...r }));
      }
    }
    for (const side of ['before', 'after']) {
      const rs = all.filter((r) => r.build.startsWith(side));
      const m = (k: keyof Result): number => median(rs.map((r) => r[k] as number));
      console.log(
        JSON.stringify({
          median: side,
          frontierReadsPerS: m('frontierReadsPerS'),
          rangeReadsPerS: m('rangeReadsPerS'),
          answeredPerS: m('answeredPerS'),
          failedPerS: m('failedPerS'),
          cpuMsPerS: m('cpuMsPerS'),
          redisCpuMsPerS: m('redisCpuMsPerS'),
        }),
      );
    }
  } finally {
    server.kill('SIGKILL');
    rmSync(redisDir, { recursive: true, force: true });
    rmSync(before, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const ref = opt('ab', '');
  if (ref) return ab(ref);
  const r = await runOnce(opt('build', 'this tree'));
  console.log(JSON.stringify(r));
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
