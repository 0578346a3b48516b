import type { SendOutcome, SendRequest } from '@qim/store-core';
import { UnavailableError } from '@qim/store-core';
import type { PublicFailure } from '@qim/service-kit';

/** What the send route needs: one send as the acting user, answered with the commit's outcome. */
export interface Sender {
  send(request: SendRequest): Promise<SendOutcome>;
}

/** A send passed its deadline; its commit goes on in the background or is finished by recovery. */
export class SendDeadlineError extends UnavailableError implements PublicFailure {
  readonly publicMessage: string;
  constructor(deadlineMs: number) {
    super(`send not finished within ${deadlineMs} ms`);
    this.publicMessage =
      `send not finished within ${deadlineMs} ms (QIM_SEND_DEADLINE_MS); ` +
      `it completes in the background or by recovery: retry with the same client_message_id`;
  }
}

/**
 * Bounds every send by `deadlineMs`: past it the caller gets `SendDeadlineError` (503
 * UNAVAILABLE). Nothing is rolled back: the commit keeps going (a retry with the same client id
 * joins or replays it) or stays recoverable, and recovery only looks at commits older than a
 * grace that is longer than this deadline (enforced by the writer's config).
 */
export class DeadlineSender implements Sender {
  constructor(
    private readonly inner: Sender,
    private readonly deadlineMs: number,
    private readonly onExpired: () => void = () => undefined,
  ) {}

  async send(request: SendRequest): Promise<SendOutcome> {
    const sending = this.inner.send(request);
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.onExpired();
        reject(new SendDeadlineError(this.deadlineMs));
      }, this.deadlineMs);
    });
    sending.catch(() => undefined);
    try {
      return await Promise.race([sending, expired]);
    } finally {
      clearTimeout(timer);
    }
  }
}
