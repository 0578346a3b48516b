import type { MailboxReader, ReadinessCheck, ServiceMetrics } from '@qim/service-kit';

/** What the mailbox HTTP layer reads; `main.ts` (or a test) builds it. */
export interface MailboxAppOptions {
  readonly serviceToken: string;
  readonly reader: MailboxReader;
  readonly status: { status(shard: number): Promise<object> };
  readonly syncMaxLimit: number;
  readonly metrics: ServiceMetrics;
  readonly readiness: readonly ReadinessCheck[];
}
