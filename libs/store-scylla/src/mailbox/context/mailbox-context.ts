import type { Clock, MailboxGcConfig, ShardEpoch } from '@qim/store-core';
import { UnavailableError } from '@qim/store-core';
import type { CqlRunner } from '../../session/cql-runner';
import type { ScyllaMailboxFaults } from './scylla-mailbox-faults';
import type { RegisteredDays } from './registered-days';
import type { KnownFrontier } from './known-frontier';

/** What every mailbox operation module works with: one keyspace, one `ShardEpoch`, explicit retention config. */
export interface MailboxContext {
  /** The statement runner; its `limit` bounds the statements this store has in flight. */
  readonly cql: CqlRunner;
  readonly shardEpoch: ShardEpoch;
  readonly gc: MailboxGcConfig;
  readonly clock: Clock;
  /** How far the server clock may run ahead of ours (ms); see `ScyllaMailboxStoreOptions`. */
  readonly clockSkewAllowanceMs: bigint;
  /** TTL (s) of a bucket proof once no ledger item refers to it (ADR-0022 §6). */
  readonly releasedProofTtlSeconds: number;
  /** Days known to be registered in users' ledgers (the no-LWT fast path). */
  readonly registered: RegisteredDays;
  /** The highest frontier this store has read or written (lets `applyPage` read the index beside the frontier). */
  readonly knownFrontier: KnownFrontier;
  /** Simulated crash points of `applyPage` (tests only); null in production. */
  readonly faults: ScyllaMailboxFaults | null;
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
