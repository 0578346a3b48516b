import type { Id128, SendRequest } from '@qim/store-core';
import { commitKeyOf, messageEventLength, messageEventOf } from '@qim/store-core';

/**
 * The length of the outbox event a send of `request` to `recipients` would publish, known before
 * reserve: the event codec is deterministic and the fields a reserve fixes later (seq, message id,
 * created-at) are fixed-width, so placeholders give the exact length.
 */
export function outboxEventBytes(request: SendRequest, recipients: readonly Id128[]): number {
  return messageEventLength(
    messageEventOf({
      key: commitKeyOf(request),
      identity: new Uint8Array(32),
      request,
      seq: 1n,
      messageId: request.clientMessageId,
      createdAt: 0n,
      recipients,
      publication: null,
    }),
  );
}
