import type { HistoryAuthorizer, MembershipDirectory, MessageReads } from '@qim/store-core';
import type { ReadBudget, ReadinessCheck, ServiceMetrics } from '@qim/service-kit';
import type { Sender } from '@qim/writer-runtime';

/** Everything the writer's HTTP layer needs; `main.ts` (or a test) builds it. */
export interface WriterAppOptions {
  /** Every accepted bearer token (`QIM_SERVICE_TOKEN` and `QIM_SERVICE_TOKENS`). */
  readonly serviceTokens: readonly string[];
  /** The send path, bounded by the send deadline (`DeadlineSender` over `MessageSender`). */
  readonly sender: Sender;
  /** History pages and conversation summaries (the only store calls the routes make). */
  readonly store: MessageReads;
  readonly membership: MembershipDirectory;
  readonly authorizer: HistoryAuthorizer;
  readonly maxFanout: number;
  /** `POST /v1/messages/batch`: most sends per batch (`QIM_SEND_BATCH_MAX`) and that route's body limit (bytes, `QIM_SEND_BATCH_BODY_LIMIT_BYTES`). */
  readonly sendBatch: { readonly maxItems: number; readonly bodyLimit: number };
  /** The process's bound on page bytes read at once (`QIM_READ_BUDGET_BYTES`): a history page holds its `max_bytes` while the store reads. */
  readonly readBudget: ReadBudget;
  readonly metrics: ServiceMetrics;
  readonly readiness: readonly ReadinessCheck[];
}
