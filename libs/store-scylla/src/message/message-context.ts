import type { Client } from 'cassandra-driver';
import type { Clock } from '@qim/store-core';
import { bind } from '../session/statements';
import type { BoundStatement, CqlStatement } from '../session/statements';
import { CommitCache } from './commit-cache';
import type { FaultPoints } from './fault-points';
import { COMMIT_CQL } from './tables/commit-table';
import { HISTORY_INDEX_CQL } from './tables/history-index-table';
import { RECORD_CQL } from './tables/record-table';
import { RECOVERY_PROGRESS_CQL } from './tables/recovery-progress-table';
import { RECOVERY_CQL } from './tables/recovery-table';
import { SEQUENCE_CQL } from './tables/sequence-table';

type Bound<T extends Record<string, CqlStatement>> = { readonly [K in keyof T]: BoundStatement };

function bindAll<T extends Record<string, CqlStatement>>(client: Client, keyspace: string, statements: T): Bound<T> {
  const out: Record<string, BoundStatement> = {};
  for (const [name, s] of Object.entries(statements)) out[name] = bind(client, keyspace, s);
  return Object.freeze(out) as Bound<T>;
}

/** Everything one message-store operation needs: bound statements, time, limits and the fault seam. */
export interface MessageContext {
  readonly commit: Bound<typeof COMMIT_CQL>;
  readonly sequence: Bound<typeof SEQUENCE_CQL>;
  readonly record: Bound<typeof RECORD_CQL>;
  readonly index: Bound<typeof HISTORY_INDEX_CQL>;
  readonly recovery: Bound<typeof RECOVERY_CQL>;
  readonly progress: Bound<typeof RECOVERY_PROGRESS_CQL>;
  readonly clock: Clock;
  /** Lifetime of the auxiliary commit facts (commit row, recovery row), ms. */
  readonly auxTtlMs: bigint;
  /** How long a claim on a commit key holds before another reserve of the same request may take it over, ms. */
  readonly claimLeaseMs: bigint;
  readonly faults: FaultPoints;
  /** The commits this store just wrote (a read-skipping hint for their next step). */
  readonly cache: CommitCache;
}

/** The non-statement part of a `MessageContext`. */
export interface MessageSettings {
  readonly clock: Clock;
  readonly auxTtlMs: bigint;
  readonly claimLeaseMs: bigint;
  readonly faults: FaultPoints;
}

export function createMessageContext(client: Client, keyspace: string, settings: MessageSettings): MessageContext {
  return Object.freeze({
    commit: bindAll(client, keyspace, COMMIT_CQL),
    sequence: bindAll(client, keyspace, SEQUENCE_CQL),
    record: bindAll(client, keyspace, RECORD_CQL),
    index: bindAll(client, keyspace, HISTORY_INDEX_CQL),
    recovery: bindAll(client, keyspace, RECOVERY_CQL),
    progress: bindAll(client, keyspace, RECOVERY_PROGRESS_CQL),
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
