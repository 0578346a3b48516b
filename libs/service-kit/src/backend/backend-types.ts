import type { MailboxGcConfig, MailboxStore, MessageStore } from '@qim/store-core';
import type { ReadinessCheck } from '../http/readiness';

/** An opened message backend: migrated (scylla), connected and proven ready. */
export interface MessageBackend {
  readonly kind: string;
  readonly store: MessageStore;
  /** The backend's real readiness check (re-run by `/readyz`). */
  readonly readiness: ReadinessCheck;
  close(): Promise<void>;
}

/** An opened mailbox backend: one `MailboxStore` per shard of the configured epoch. */
export interface MailboxBackend {
  readonly kind: string;
  /** The store bound to `ShardEpoch{shard, epoch}` (cached: one per shard per process). */
  storeFor(shard: number): Promise<MailboxStore>;
  readonly readiness: ReadinessCheck;
  close(): Promise<void>;
}

/** What the mailbox stores are bound to. */
export interface MailboxBinding {
  readonly epoch: number;
  /** Entry retention and the dispatch dedupe window. */
  readonly gc: MailboxGcConfig;
  /** Store statements one shard's `applyPage` keeps in flight (`QIM_MAILBOX_APPLY_CONCURRENCY`). */
  readonly applyConcurrency: number;
  /** `QIM_CLOCK_SKEW_MS`: how far service and database clocks may disagree (Scylla readers keep 1 s + this from an expiry; every fast path, Redis too, this + 1 h). Default 0. */
  readonly clockSkewAllowanceMs?: bigint;
}

/** Progress lines of the start-up steps (migrate → connect → readiness). */
export type StartupLog = (step: string, detail?: object) => void;
