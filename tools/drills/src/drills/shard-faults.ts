import { NO_RETRY, QimClient, newId128 } from '@qim/client';
import type { ShardStatus } from '@qim/client';
import type { Redis } from 'ioredis';
import type { Load } from '../checker/load';
import type { Deployment } from '../stack/deployment';
import { DRILL_TOKEN } from '../stack/deployment';
import { sleep } from './harness';

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
  return new QimClient({ writerUrl: d.of('writer')[0]!.url, mailboxUrl: url, token: DRILL_TOKEN, tenantId: newId128(), userId: newId128(), timeoutMs: 10_000, retry: NO_RETRY });
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
  while (Date.now() - t0 < holdMs) {
    const r = await load.probeSend(NO_RETRY);
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
  `${a.sends.accepted}/${a.sends.sent} probe sends accepted${a.sends.codes.length > 0 ? ` (refused: ${a.sends.codes.join(', ')})` : ''}; admission gate ${a.gateClosed ? 'CLOSED' : 'stayed open'}; qim_delivery_stalled_partitions ${a.stalledPartitions}`;
