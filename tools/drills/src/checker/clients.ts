import { QimClient } from '@qim/client';
import type { Id128, RetryPolicy } from '@qim/client';

/** Where the checker sends: every writer and mailbox instance of the deployment (URLs are fixed across restarts). */
export interface Endpoints {
  readonly writers: readonly { readonly name: string; readonly url: string }[];
  readonly mailboxes: readonly { readonly name: string; readonly url: string }[];
  readonly token: string;
}

/** Builds `QimClient`s acting as a user through the i-th writer / mailbox instance (round robin). */
export class ClientPool {
  constructor(
    private readonly endpoints: Endpoints,
    private readonly tenantId: Id128,
    private readonly retry: Partial<RetryPolicy> = {},
    private readonly timeoutMs = 10_000,
  ) {}

  get writerCount(): number {
    return this.endpoints.writers.length;
  }

  writerName(i: number): string {
    return this.endpoints.writers[i % this.endpoints.writers.length]!.name;
  }

  /** A client acting as `userId` through writer `w` and mailbox `m` (indices taken modulo the counts). */
  client(userId: Id128, w = 0, m = 0, retry?: Partial<RetryPolicy>): QimClient {
    const writer = this.endpoints.writers[w % this.endpoints.writers.length]!;
    const mailbox = this.endpoints.mailboxes[m % this.endpoints.mailboxes.length]!;
    return new QimClient({
      writerUrl: writer.url,
      mailboxUrl: mailbox.url,
      token: this.endpoints.token,
      tenantId: this.tenantId,
      userId,
      timeoutMs: this.timeoutMs,
      retry: retry ?? this.retry,
    });
  }
}
