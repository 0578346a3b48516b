import type { ReadinessCheck, ServiceMetrics } from '@qim/service-kit';
import type { MailboxReader } from '@qim/mailbox-runtime';

/** What the mailbox HTTP layer reads; `main.ts` (or a test) builds it. */
export interface MailboxAppOptions {
  /** Every accepted bearer token (`QIM_SERVICE_TOKEN` and `QIM_SERVICE_TOKENS`). */
  readonly serviceTokens: readonly string[];
  readonly reader: MailboxReader;
  readonly status: { status(shard: number): Promise<object> };
  readonly syncMaxLimit: number;
  /** Largest `wait_ms` of a long-polling sync (`QIM_SYNC_MAX_WAIT_MS`); above → 400. */
  readonly syncMaxWaitMs: number;
  /** Longest life of a streamed sync (`QIM_SYNC_STREAM_MAX_MS`); it then ends with an `end` event. */
  readonly syncStreamMaxMs: number;
  readonly metrics: ServiceMetrics;
  readonly readiness: readonly ReadinessCheck[];
}
