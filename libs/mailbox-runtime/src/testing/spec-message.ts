import type { Id128, MessageRecord } from '@qim/store-core';

const hex = (n: number): Id128 => n.toString(16).padStart(32, '0') as Id128;

/**
 * A message record for the runtime's specs: message `seq` of conversation `0xc1`, from `senderId`,
 * created at `createdAt`; its message and client message ids follow from `seq`.
 */
export function specMessage(tenantId: Id128, senderId: Id128, seq: bigint, createdAt: bigint, body = `m${seq}`): MessageRecord {
  return {
    tenantId,
    conversationId: hex(0xc1),
    seq,
    messageId: hex(0xe000 + Number(seq)),
    senderId,
    clientMessageId: hex(0xd000 + Number(seq)),
    kind: 'normal',
    control: false,
    contentType: 'text/plain',
    body: Buffer.from(body),
    createdAt,
    retention: { kind: 'default' },
  };
}
