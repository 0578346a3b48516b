import { randomBytes } from 'node:crypto';
import type { CommitIntent, Id128 } from '@qim/store-core';

const id = (n: bigint): Id128 => n.toString(16).padStart(32, '0') as Id128;

export interface SampleShape {
  /** Conversations the intents are spread over (and so the topic's partitions). */
  readonly conversations?: number;
  readonly bodyBytes?: number;
  readonly recipients?: number;
}

/**
 * A valid, unique commit intent for publisher tests: `n` makes ids and seq unique, and the body is
 * random so that two publications never have equal bytes.
 */
export function sampleIntent(n: number, shape: SampleShape = {}): CommitIntent {
  const { conversations = 7, bodyBytes = 64, recipients = 2 } = shape;
  const k = BigInt(n);
  const conversationId = id(0xc0n * 2n ** 64n + BigInt(n % conversations));
  const request = {
    tenantId: id(1n),
    senderId: id(2n),
    clientMessageId: id(2n ** 64n + k),
    conversationId,
    kind: 'normal' as const,
    control: false,
    contentType: 'text/plain',
    body: new Uint8Array(randomBytes(bodyBytes)),
    retention: { kind: 'default' as const },
  };
  return {
    key: { tenantId: request.tenantId, senderId: request.senderId, clientMessageId: request.clientMessageId },
    identity: new Uint8Array(32),
    request,
    seq: k + 1n,
    messageId: id(2n ** 65n + k),
    createdAt: BigInt(Date.now()),
    recipients: Array.from({ length: recipients }, (_, i) => id(0xa0n * 2n ** 64n + BigInt(i))),
    publication: null,
  };
}
