import type { Message, Retention } from '../model/message';
import { QimProtocolError } from '../errors/qim-error';
import type { JsonReader } from './json-reader';

function retentionOf(r: JsonReader): Retention {
  const kind = r.string('kind');
  switch (kind) {
    case 'ephemeral':
      return { kind, ttlSeconds: r.number('ttl_seconds') };
    case 'default':
    case 'tenant_custom':
    case 'compliance_hold':
      return { kind };
    default:
      throw new QimProtocolError(`unknown retention kind ${JSON.stringify(kind)}`, null, null);
  }
}

/** A message record in its wire form (u64s as decimal strings, body base64). */
export function messageOf(r: JsonReader): Message {
  return {
    conversationId: r.id('conversation_id'),
    seq: r.u64('seq'),
    messageId: r.id('message_id'),
    senderId: r.id('sender_id'),
    clientMessageId: r.has('client_message_id') ? r.id('client_message_id') : null,
    kind: r.string('kind'),
    control: r.boolean('control'),
    contentType: r.string('content_type'),
    body: r.bytes('body'),
    createdAt: r.u64('created_at'),
    retention: r.has('retention') ? retentionOf(r.object('retention')) : null,
  };
}

/** The wire form of a retention class for a send body. */
export function retentionJson(r: Retention): Record<string, unknown> {
  return r.kind === 'ephemeral' ? { kind: r.kind, ttl_seconds: r.ttlSeconds } : { kind: r.kind };
}
