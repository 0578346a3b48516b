/**
 * Store calls of delivery per message (issue 31 item 4, ADR-0041; run: tools/bench/run.sh delivery-reads [options]).
 *
 * Counts, not time: one mailbox reader and frontier board in this process, every shard owned here
 * (as a mailbox replica that applies its shards), `--users` users (default 300) each with one device
 * that long-polls (`wait_ms` 30 s) from its cursor and asks again as soon as it is answered, like an
 * app. The benchmark then applies `--messages` messages (default 600) of `--members` recipients
 * (default 3, distinct random users) in pages of `--page` messages (default 8) per shard, telling the
 * board after each page as the shard worker does, with `--gap-ms` (default 0: back to back, the
 * saturation case) between pages. When every recipient's device has its entries it prints one JSON
 * line: store calls by method (counted on the store objects), the reads `rangeScanMany` carried,
 * syncs answered, and those per message. With `--redis-url` (or `--backend redis`, QIM_REDIS_URL)
 * the stores are Redis (own namespace) and the line adds the Redis commands the stores sent.
 *
 *   --ab <git-ref> [--rounds N]  the same script run by <git-ref>'s libraries (exported to a temp
 *       folder) and by this tree's, alternated N rounds (default 2); one line per run.
 *   --shards S (default 4)  --seed N (recipients; default 1)
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DispatchRecord, Id128, MailboxStore, MessageRecord } from '@qim/store-core';
import { FrontierBoard, MailboxReader, ShardPlacements, dispatchRecordsOf, userKeyOf } from '@qim/mailbox-runtime';
import { memoryMailboxBackend, openMailboxBackend } from '@qim/backends';
import type { MailboxBackend } from '@qim/backends';

const args = process.argv.slice(2);
const opt = (name: string, def: string): string => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1]! : def;
};
const num = (name: string, def: number): number => {
  const v = Number(opt(name, String(def)));
  if (!Number.isInteger(v) || v < 0) throw new Error(`--${name} must be an integer ≥ 0`);
  return v;
};
const EPOCH = 1;
const rid = (): Id128 => randomBytes(16).toString('hex') as Id128;

/** A small deterministic generator (the same recipients in both builds of an A/B). */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4_294_967_296;
  };
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
    body: Buffer.from('hello from the delivery benchmark'),
    createdAt: BigInt(Date.now()),
    retention: { kind: 'default' },
  };
}

interface Result {
  readonly build: string;
  readonly backend: string;
  readonly users: number;
  readonly messages: number;
  readonly members: number;
  readonly page: number;
  readonly gapMs: number;
  readonly calls: { readonly rangeScan: number; readonly rangeScanMany: number; readonly frontier: number };
  readonly readsInMany: number;
  readonly syncs: number;
  readonly storeCallsPerMessage: number;
  readonly scansPerMessage: number;
  readonly syncsPerMessage: number;
  readonly redisCommandsPerMessage?: number;
}

async function runOnce(build: string): Promise<Result> {
  const users = num('users', 300);
  const messages = num('messages', 600);
  const members = num('members', 3);
  const pageSize = Math.max(1, num('page', 8));
  const shards = Math.max(1, num('shards', 4));
  const gapMs = num('gap-ms', 0);
  const random = rng(num('seed', 1));
  const redisUrl = opt('redis-url', opt('backend', 'memory') === 'redis' ? (process.env['QIM_REDIS_URL'] ?? '') : '');
  const binding = { epoch: EPOCH, gc: { entryRetentionMs: 86_400_000n, dispatchDedupeMs: 86_400_000n }, applyConcurrency: 4 };
  const backend: MailboxBackend = redisUrl
    ? await openMailboxBackend({ kind: 'redis', redisUrl, namespace: `dlr${randomBytes(4).toString('hex')}` }, 'test', binding, () => undefined)
    : memoryMailboxBackend(binding);

  const calls = { rangeScan: 0, rangeScanMany: 0, frontier: 0 };
  let readsInMany = 0;
  let counting = false;
  const counted = new Map<number, MailboxStore>();
  const storeFor = async (shard: number): Promise<MailboxStore> => {
    let s = counted.get(shard);
    if (s === undefined) {
      const real = await backend.storeFor(shard);
      s = new Proxy(real, {
        get(target, prop, receiver) {
          const v = Reflect.get(target, prop, receiver) as unknown;
          if ((prop === 'frontier' || prop === 'rangeScan' || prop === 'rangeScanMany') && typeof v === 'function') {
            return (...a: unknown[]) => {
              if (counting) {
                calls[prop] += 1;
                if (prop === 'rangeScanMany') readsInMany += (a[0] as unknown[]).length;
              }
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
  const redisReads = async (): Promise<number> => {
    let n = 0;
    for (let shard = 0; shard < shards; shard++) n += ((await backend.storeFor(shard)) as { io?: { reads: number } }).io?.reads ?? 0;
    return n;
  };

  const tenantId = rid();
  const placements = new ShardPlacements(shards);
  const people = Array.from({ length: users }, () => rid());
  const frontiers: bigint[] = [];
  // One applied page per shard, so every frontier is an offset (as in a running system).
  for (let shard = 0; shard < shards; shard++) {
    let u = rid();
    while (placements.of(tenantId, u) !== shard) u = rid();
    const record = dispatchRecordsOf({ record: message(tenantId, 1n), recipients: [u] }, shards)[0]!;
    await (await backend.storeFor(shard)).applyPage({ fromOffset: 0n, toOffset: 0n, records: [{ offset: 0n, record }] });
    frontiers.push(0n);
  }
  const board = new FrontierBoard();
  board.own(Array.from({ length: shards }, (_, i) => i));
  for (let s = 0; s < shards; s++) board.learn(s, 0n);
  const reader = new MailboxReader({ storeFor, shardCount: shards, epoch: EPOCH, board, storeBoundMs: 60_000 });

  // The devices: a first sync for a cursor, then long polls, each asked again when answered.
  let stop = false;
  let syncs = 0;
  let delivered = 0;
  const leave = new AbortController();
  setMaxListeners(users + 16, leave.signal); // one abort listener per waiting device
  const cursors = await Promise.all(
    people.map((u) => reader.sync({ tenantId, actingUser: u, userId: u, after: null, limit: 100, maxBytes: 1 << 20, waitMs: 0 }).then((p) => p.nextAfter)),
  );
  const devices = people.map(async (u, i) => {
    let after = cursors[i]!;
    while (!stop) {
      const page = await reader.sync({ tenantId, actingUser: u, userId: u, after, limit: 100, maxBytes: 1 << 20, waitMs: 30_000, signal: leave.signal });
      if (counting) syncs += 1;
      delivered += page.entries.length;
      after = page.nextAfter;
    }
  });
  const until = async (what: string, ok: () => boolean): Promise<void> => {
    const end = Date.now() + 120_000;
    while (!ok()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  await until('every device waiting', () => board.waiterCount() === users);

  // The messages, `pageSize` per shard page; the recipients drawn before counting starts.
  const plan: DispatchRecord[][] = Array.from({ length: shards }, () => []);
  let expected = 0;
  for (let m = 0; m < messages; m++) {
    const to = new Set<Id128>();
    while (to.size < Math.min(members, users)) to.add(people[Math.floor(random() * users)]!);
    expected += to.size;
    for (const d of dispatchRecordsOf({ record: message(tenantId, BigInt(m + 2)), recipients: [...to] }, placements)) plan[d.shard]!.push(d);
  }
  const reads0 = await redisReads();
  counting = true;
  const pages = Math.max(...plan.map((p) => Math.ceil(p.length / pageSize)));
  for (let k = 0; k < pages; k++) {
    for (let shard = 0; shard < shards; shard++) {
      const batch = plan[shard]!.slice(k * pageSize, (k + 1) * pageSize);
      if (batch.length === 0) continue;
      const from = frontiers[shard]! + 1n;
      const records = batch.map((record, i) => ({ offset: from + BigInt(i), record }));
      const store = await backend.storeFor(shard);
      const report = await store.applyPage({ fromOffset: from, toOffset: from + BigInt(batch.length - 1), records });
      frontiers[shard] = report.frontier;
      board.advance(shard, report.frontier, new Set(batch.flatMap((d) => d.recipients.map((r) => userKeyOf(tenantId, r)))), from);
    }
    await new Promise((r) => (gapMs > 0 ? setTimeout(r, gapMs) : setImmediate(r)));
  }
  await until('every entry delivered', () => delivered >= expected);
  await until('every device waiting again', () => board.waiterCount() === users);
  counting = false;
  const redisCommands = (await redisReads()) - reads0;
  stop = true;
  leave.abort();
  await Promise.allSettled(devices);
  await backend.close();
  const storeCalls = calls.rangeScan + calls.rangeScanMany + calls.frontier;
  const round = (x: number): number => Math.round(x * 1000) / 1000;
  return {
    build,
    backend: redisUrl ? 'redis' : 'memory',
    users,
    messages,
    members,
    page: pageSize,
    gapMs,
    calls,
    readsInMany,
    syncs,
    storeCallsPerMessage: round(storeCalls / messages),
    scansPerMessage: round((calls.rangeScan + readsInMany) / messages),
    syncsPerMessage: round(syncs / messages),
    ...(redisUrl ? { redisCommandsPerMessage: round(redisCommands / messages) } : {}),
  };
}

/** `--ab`: the same script run by `ref`'s libraries and this tree's, alternated. */
function ab(ref: string): void {
  const root = execFileSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8' }).trim();
  const rounds = num('rounds', 2);
  const before = mkdtempSync(join(tmpdir(), 'qim-delivery-reads-before-'));
  try {
    execFileSync('bash', ['-c', `git -C "$0" archive "$1" | tar -x -C "$2"`, root, ref, before]);
    symlinkSync(join(root, 'node_modules'), join(before, 'node_modules'));
    mkdirSync(join(before, 'tools/bench'), { recursive: true });
    cpSync(join(root, 'tools/bench/delivery-reads.ts'), join(before, 'tools/bench/delivery-reads.ts'));
    const refCommit = execFileSync('git', ['-C', root, 'rev-parse', '--short', ref], { encoding: 'utf8' }).trim();
    const hereCommit = execFileSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const pass = args.filter((_, i) => !['--ab', '--rounds'].includes(args[i]!) && !['--ab', '--rounds'].includes(args[i - 1] ?? ''));
    console.log(`# delivery-reads A/B: before = ${ref} (${refCommit}), after = this tree (${hereCommit})`);
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
        const out = execFileSync(join(tree, 'tools/bench/run.sh'), ['delivery-reads', ...pass, '--build', build], { encoding: 'utf8', maxBuffer: 1 << 24 });
        console.log(JSON.stringify({ round, ...(JSON.parse(out.trim().split('\n').pop()!) as Result) }));
      }
    }
  } finally {
    rmSync(before, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const ref = opt('ab', '');
  if (ref) return ab(ref);
  console.log(JSON.stringify(await runOnce(opt('build', 'this tree'))));
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
