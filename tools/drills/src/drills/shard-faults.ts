import { NO_RETRY, QimClient, newId128 } from '@qim/client';
import type { ShardStatus } from '@qim/client';
import { Redis } from 'ioredis';
import type { Load } from '../checker/load';
import type { Deployment } from '../stack/deployment';
import { DRILL_TOKEN } from '../stack/deployment';
import type { DrillContext } from './drill';
import { deploy, sleep } from './harness';
import { redisModeEnv } from './redis-drills';

/** The writer's default admission bound (`QIM_ADMISSION_MAX_LAG_MS`, ms): the shard drills run the services with their defaults. */
export const ADMISSION_MAX_LAG_MS = 10_000;

/**
 * The Redis key of a shard's frontier: under the shard's tag `<namespace>:{sf:<shard>}:`, named
 * `…frontier:<epoch>` (libs/store-redis `RedisKeys.shardFrontier`; tools may not import it). Found by
 * SCAN so a renamed suffix still matches; anything but exactly one key fails loudly.
 */
export async function frontierKey(redis: Redis, namespace: string, shard: number, epoch: string): Promise<string> {
  const found = new Set<string>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${namespace}:{sf:${shard}}:*frontier:${epoch}`, 'COUNT', 1000);
    for (const k of keys) found.add(k);
    cursor = next;
  } while (cursor !== '0');
  if (found.size !== 1) throw new Error(`expected one frontier key of shard ${shard} epoch ${epoch} under ${namespace}, found ${JSON.stringify([...found])}`);
  return [...found][0]!;
}

/** A frontier as the Redis store writes it (16 hex digits). */
export const hex16 = (n: bigint): string => n.toString(16).padStart(16, '0');

/** The frontier stored under `key`; fails loudly when the key does not hold one (layout changed?). */
export async function storedFrontier(redis: Redis, key: string): Promise<bigint> {
  const v = await redis.get(key);
  if (v === null || !/^[0-9a-f]{16}$/.test(v)) throw new Error(`${key} holds ${JSON.stringify(v)}, not a frontier (key layout changed?)`);
  return BigInt(`0x${v}`);
}

/** A client for the status route of mailbox `m` (no retries: a probe reports what it saw). */
export function statusClient(d: Deployment, m: number): QimClient {
  const url = d.of('mailbox')[m]!.url;
  return new QimClient({
    writerUrl: d.of('writer')[0]!.url,
    mailboxUrl: url,
    token: DRILL_TOKEN,
    tenantId: newId128(),
    userId: newId128(),
    timeoutMs: 10_000,
    retry: NO_RETRY,
  });
}

export const frontierOf = (s: ShardStatus): bigint | null => s.frontier ?? null;
export const stallOf = (s: ShardStatus): { offset: bigint; reason: string } | null =>
  s.stall ? { offset: BigInt(String(s.stall['page_from_offset'])), reason: String(s.stall['reason'] ?? '') } : null;
export const refusalOf = (s: ShardStatus): { kind: string; reason: string } | null => {
  const r = s.raw['refused'] as Record<string, unknown> | null | undefined;
  return r ? { kind: String(r['kind']), reason: String(r['reason'] ?? '') } : null;
};
export const kafkaEnd = (s: ShardStatus): bigint | null => {
  const k = s.raw['kafka'] as Record<string, unknown> | null;
  return k && typeof k['end'] === 'string' ? BigInt(k['end']) : null;
};

/** A writer metric summed over its labels (the `/metrics` route). */
export async function writerMetric(d: Deployment, name: string): Promise<number> {
  const text = await (await fetch(`${d.of('writer')[0]!.url}/metrics`)).text();
  return [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'gm'))].reduce((sum, m) => sum + Number(m[1]), 0);
}

/** Polls `probe` every 500 ms until it returns a value (sending a message every 2 s so dispatches keep arriving). */
export async function until<T>(what: string, load: Load, timeoutMs: number, probe: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastSend = 0;
  for (;;) {
    const v = await probe().catch(() => null);
    if (v !== null) return v;
    if (Date.now() > deadline) throw new Error(`${what} not seen within ${timeoutMs} ms`);
    if (Date.now() - lastSend > 2_000) {
      lastSend = Date.now();
      void load.probeSend();
    }
    await sleep(500);
  }
}

/** What the writer did while a shard stood still (`admissionDuring`). */
export interface AdmissionWhileStalled {
  /** Probe sends (no retry): how many, how many accepted, the codes of the others. */
  readonly sends: { sent: number; accepted: number; codes: string[] };
  /** Whether the admission gate was seen closed, or made a send wait. */
  readonly gateClosed: boolean;
  /** `qim_delivery_stalled_partitions` summed over groups at the end. */
  readonly stalledPartitions: number;
  /** Every send accepted, the gate never closed, the stall reported. */
  readonly ok: boolean;
}

/**
 * For `holdMs`: one probe send a second without retries, the writer's gate watched
 * (`qim_admission_closed`, `qim_admission_waits_total`), `each` called after every second (the
 * drill's own checks). A stalled or refused shard is not load (ADR-0023 amendment): every send must
 * be accepted, the gate never close, and the stall be reported (`qim_delivery_stalled_partitions`).
 */
export async function admissionDuring(d: Deployment, load: Load, holdMs: number, each: () => Promise<void>): Promise<AdmissionWhileStalled> {
  const waitsBefore = await writerMetric(d, 'qim_admission_waits_total');
  const sends = { sent: 0, accepted: 0, codes: [] as string[] };
  let closed = false;
  const t0 = Date.now();
  // The probes go to each conversation in turn (not at random), so every shard with a stable member
  // gets entries during the hold and a check that another shard keeps delivering cannot miss by chance.
  const conversations = load.conversations;
  while (Date.now() - t0 < holdMs) {
    const r = await load.probeSend(NO_RETRY, conversations[sends.sent % conversations.length]);
    sends.sent += 1;
    if (r.code === 'OK') sends.accepted += 1;
    else sends.codes.push(r.code);
    if ((await writerMetric(d, 'qim_admission_closed')) > 0) closed = true;
    await sleep(1_000);
    await each();
  }
  const gateClosed = closed || (await writerMetric(d, 'qim_admission_waits_total')) > waitsBefore;
  const stalledPartitions = await writerMetric(d, 'qim_delivery_stalled_partitions');
  return { sends, gateClosed, stalledPartitions, ok: sends.sent > 0 && sends.accepted === sends.sent && !gateClosed && stalledPartitions >= 1 };
}

/** One line about `admissionDuring`'s outcome. */
export const admissionLine = (a: AdmissionWhileStalled): string =>
  `${a.sends.accepted}/${a.sends.sent} probe sends accepted${a.sends.codes.length > 0 ? ` (refused: ${a.sends.codes.join(', ')})` : ''}; ` +
  `admission gate ${a.gateClosed ? 'CLOSED' : 'stayed open'}; qim_delivery_stalled_partitions ${a.stalledPartitions}`;

/**
 * The shard drills' deployment: redis mode, one writer and one mailbox, and a Redis client on the
 * deployment's server (the drill moves a frontier key with it). Both are closed after `body`.
 */
export async function withShardDrill(ctx: DrillContext, body: (d: Deployment, redis: Redis) => Promise<boolean>): Promise<boolean> {
  const env = redisModeEnv(ctx);
  const d = await deploy(ctx, env, { writers: 1, mailboxes: 1 });
  const redis = new Redis(env['QIM_REDIS_URL']!, { maxRetriesPerRequest: 3, lazyConnect: true });
  try {
    await redis.connect();
    return await body(d, redis);
  } finally {
    redis.disconnect();
    await d.down();
  }
}

/** The shard a drill faults, read at load fraction `from`, and its frontier then (`earlier`), once the stored frontier is 10 past it. */
export interface ShardAhead {
  readonly status: QimClient;
  readonly shard: number;
  readonly earlier: bigint;
  /** The Redis key of the shard's frontier. */
  readonly key: string;
  /** The stored frontier, at least `earlier + 10`. */
  readonly now: bigint;
}

/**
 * Reads both shards' frontiers at load fraction `from` and picks the higher one (both shards get
 * traffic; one with progress is needed), then — from load fraction `at` — waits (sending) until its
 * stored frontier is at least 10 past that earlier read: the range a drill's fault takes away.
 */
export async function shardAhead(drill: string, d: Deployment, redis: Redis, load: Load, from: number, at: number): Promise<ShardAhead> {
  const status = statusClient(d, 0);
  await load.at(from);
  const before = await Promise.all([0, 1].map((s) => status.shardStatus(s)));
  const pick = before.map((s) => frontierOf(s) ?? -1n);
  const shard = pick[1]! > pick[0]! ? 1 : 0;
  const earlier = pick[shard]!;
  if (earlier < 0n) throw new Error(`${drill}: no shard has a frontier yet`);
  await load.at(at);
  const key = await frontierKey(redis, d.env['QIM_REDIS_NAMESPACE']!, shard, d.env['QIM_MAILBOX_EPOCH']!);
  await storedFrontier(redis, key); // fails loudly at once when the key is not a frontier
  const now = await until(`shard ${shard}'s frontier 10 past ${earlier}`, load, 60_000, async () => {
    const f = await storedFrontier(redis, key);
    return f >= earlier + 10n ? f : null;
  });
  return { status, shard, earlier, key, now };
}

/**
 * The documented operator action for a stalled or refused shard (apps/README.md): stop every
 * mailbox, `admin reset-mailbox-offsets --shard N`, start them again. Returns the command's exit
 * code and its lines about the shard.
 */
export async function resetShard(ctx: DrillContext, d: Deployment, shard: number): Promise<{ code: number | null; output: string }> {
  for (const m of d.of('mailbox')) await m.process?.stop('SIGTERM');
  const reset = await d.runToExit('admin', `reset-shard-${shard}`, {}, ['reset-mailbox-offsets', '--shard', String(shard)]);
  const output = reset.output
    .trim()
    .split('\n')
    .filter((l) => l.includes(`shard ${shard}`))
    .join(' | ');
  ctx.log(`reset-mailbox-offsets --shard ${shard}: exit ${reset.code}: ${output}`);
  for (const m of d.of('mailbox')) await d.start(m);
  return { code: reset.code, output };
}
