import type { HistoryAuthorizer, MembershipDirectory, MessageStore } from '@qim/store-core';
import type { ReadinessCheck, ServiceMetrics } from '@qim/service-kit';
import type { Sender } from '@qim/writer-runtime';

/** Everything the writer's HTTP layer needs; `main.ts` (or a test) builds it. */
export interface WriterAppOptions {
  /** Every accepted bearer token (`QIM_SERVICE_TOKEN` and `QIM_SERVICE_TOKENS`). */
  readonly serviceTokens: readonly string[];
  /** The send path, bounded by the send deadline (`DeadlineSender` over `MessageSender`). */
  readonly sender: Sender;
  readonly store: MessageStore;
  readonly membership: MembershipDirectory;
  readonly authorizer: HistoryAuthorizer;
  readonly maxFanout: number;
  readonly metrics: ServiceMetrics;
  readonly readiness: readonly ReadinessCheck[];
}
