import type { HistoryAuthorizer, MessageStore } from '@qim/store-core';
import type { MembershipDirectory, MessageSender, ReadinessCheck, ServiceMetrics } from '@qim/service-kit';

/** Everything the writer's HTTP layer needs; `main.ts` (or a test) builds it. */
export interface WriterAppOptions {
  readonly serviceToken: string;
  readonly sender: MessageSender;
  readonly store: MessageStore;
  readonly membership: MembershipDirectory;
  readonly authorizer: HistoryAuthorizer;
  readonly maxFanout: number;
  readonly metrics: ServiceMetrics;
  readonly readiness: readonly ReadinessCheck[];
}
