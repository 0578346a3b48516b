import type { Clock } from '@qim/store-core';
import type { CqlRunner } from '../session/cql-runner';
import { CommitCache } from './commit-cache';
import type { ScyllaMessageFaults } from './scylla-message-faults';
import { COMMIT_CQL } from './tables/commit-table';
import { HISTORY_INDEX_CQL } from './tables/history-index-table';
import { RECORD_CQL } from './tables/record-table';
import { RECOVERY_PROGRESS_CQL } from './tables/recovery-progress-table';
import { RECOVERY_CQL } from './tables/recovery-table';
import { SEQUENCE_CQL } from './tables/sequence-table';

/**
 * Everything one message-store operation needs: the runner, the tables' named statements (run as
 * `ctx.cql.run(ctx.commit.claim, params)`), time, limits and the fault seam.
 */
export interface MessageContext {
  /** The store's statement runner (named, counted, bounded in flight). */
  readonly cql: CqlRunner;
  readonly commit: typeof COMMIT_CQL;
  readonly sequence: typeof SEQUENCE_CQL;
  readonly record: typeof RECORD_CQL;
  readonly index: typeof HISTORY_INDEX_CQL;
  readonly recovery: typeof RECOVERY_CQL;
  readonly progress: typeof RECOVERY_PROGRESS_CQL;
  readonly clock: Clock;
  /** Lifetime of the auxiliary commit facts (commit row, recovery row), ms. */
  readonly auxTtlMs: bigint;
  /** How long a claim on a commit key holds before another reserve of the same request may take it over, ms. */
  readonly claimLeaseMs: bigint;
  readonly faults: ScyllaMessageFaults;
  /** The commits this store just wrote (a read-skipping hint for their next step). */
  readonly cache: CommitCache;
}

/** The non-statement part of a `MessageContext`. */
export interface MessageSettings {
  readonly clock: Clock;
  readonly auxTtlMs: bigint;
  readonly claimLeaseMs: bigint;
  readonly faults: ScyllaMessageFaults;
}

export function createMessageContext(cql: CqlRunner, settings: MessageSettings): MessageContext {
  return Object.freeze({
    cql,
    commit: COMMIT_CQL,
    sequence: SEQUENCE_CQL,
    record: RECORD_CQL,
    index: HISTORY_INDEX_CQL,
    recovery: RECOVERY_CQL,
    progress: RECOVERY_PROGRESS_CQL,
    clock: settings.clock,
    auxTtlMs: settings.auxTtlMs,
    claimLeaseMs: settings.claimLeaseMs,
    faults: settings.faults,
    cache: new CommitCache(),
  });
}

/** Whole seconds of a ms duration, rounded up, at least 1 (a CQL TTL of 0 would mean "never"). */
export function ttlSecondsOf(ms: bigint): number {
  const s = (ms + 999n) / 1000n;
  return Number(s < 1n ? 1n : s);
}
