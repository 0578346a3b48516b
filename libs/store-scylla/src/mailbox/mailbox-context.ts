import type { Clock, MailboxGcConfig, ShardEpoch } from '@qim/store-core';
import { UnavailableError } from '@qim/store-core';
import type { MailboxCql } from './cql/mailbox-cql';
import type { GcStepHook } from './gc/gc-steps';

/** What every mailbox operation module works with: one keyspace, one `ShardEpoch`, explicit GC config. */
export interface MailboxContext {
  readonly cql: MailboxCql;
  readonly shardEpoch: ShardEpoch;
  readonly gc: MailboxGcConfig;
  readonly clock: Clock;
  /** How far the server clock may run ahead of ours (ms); see `ScyllaMailboxStoreOptions`. */
  readonly clockSkewAllowanceMs: bigint;
  /** Concurrent per-user writes of one batch/chunk (and lane source writes of one observation). */
  readonly writeConcurrency: number;
  /** Concurrent row rewrites of one GC phase. */
  readonly gcConcurrency: number;
  /** Called after every durable GC step (tests inject crashes here). */
  readonly gcStepHook: GcStepHook | null;
}

/** Most compare-and-set attempts one operation makes before reporting contention as `UnavailableError`. */
export const MAX_CAS_ATTEMPTS = 32;

/** Marker a CAS attempt returns to ask for another attempt (state changed underneath it). */
export const RETRY = Symbol('retry');

/**
 * Runs `attempt` until it returns a value (not `RETRY`), with a short jittered pause between tries.
 * `MAX_CAS_ATTEMPTS` lost races → `UnavailableError` (safe to retry later; nothing half-written).
 */
export async function casLoop<T>(what: string, attempt: (n: number) => Promise<T | typeof RETRY>): Promise<T> {
  for (let n = 0; n < MAX_CAS_ATTEMPTS; n++) {
    const out = await attempt(n);
    if (out !== RETRY) return out;
    await new Promise((r) => setTimeout(r, 2 + Math.floor(Math.random() * 8 * Math.min(n + 1, 8))));
  }
  throw new UnavailableError(`${what}: gave up after ${MAX_CAS_ATTEMPTS} contended compare-and-set attempts`);
}

/**
 * Runs `fn` over `items` with at most `limit` in flight. After the first failure no new item starts
 * (like a crash: what already ran stays done, the rest is left for a retry); rejects with that failure
 * once the running ones settle.
 */
export async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async (): Promise<void> => {
    while (next < items.length && failure === null) {
      const i = next++;
      try {
        await fn(items[i]!, i);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failure !== null) throw (failure as { error: unknown }).error;
}
