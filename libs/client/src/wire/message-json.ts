import { messageRecordJsonSchema } from '@qim/wire';
import type { RetentionJson } from '@qim/wire';
import type { Message, Retention } from '../model/message';
import type { Id128 } from './ids';
import type { JsonReader } from './json-reader';
import { QimProtocolError } from '../errors/qim-error';

function retentionOf(r: RetentionJson): Retention {
  if (r.kind !== 'ephemeral') return { kind: r.kind };
  if (r.ttl_seconds === undefined) throw new QimProtocolError('an ephemeral retention without ttl_seconds', null, null);
  return { kind: r.kind, ttlSeconds: r.ttl_seconds };
}

/**
 * A message record in its wire form (u64s as decimal strings, body base64), decoded with the
 * services' own definition (`@qim/wire` `messageRecordJsonSchema`), never a copy of it.
 */
export function messageOf(r: JsonReader): Message {
  const m = r.decode(messageRecordJsonSchema);
  return {
    conversationId: m.conversation_id as Id128,
    seq: BigInt(m.seq),
    messageId: m.message_id as Id128,
    senderId: m.sender_id as Id128,
    clientMessageId: m.client_message_id as Id128,
    kind: m.kind,
    control: m.control,
    contentType: m.content_type,
    // A Buffer is a Uint8Array: no second copy of every body.
    body: Buffer.from(m.body, 'base64'),
    createdAt: BigInt(m.created_at),
    retention: retentionOf(m.retention),
  };
}

/** The wire form of a retention class for a send body. */
export function retentionJson(r: Retention): Record<string, unknown> {
  return r.kind === 'ephemeral' ? { kind: r.kind, ttl_seconds: r.ttlSeconds } : { kind: r.kind };
}
