import type { MessageRecord, RetentionClass } from '@qim/store-core';
import { z } from 'zod';
import { id128Text, messageKind, u64Text } from './fields';

/** A stored retention class in an answer. */
export const retentionJsonSchema = z.object({
  kind: z.enum(['default', 'ephemeral', 'tenant_custom', 'compliance_hold']),
  ttl_seconds: z.number().int().optional().describe('only for `ephemeral`'),
});

/**
 * The one wire form of a stored message, used by the writer (history, summaries) and the mailbox
 * (sync entries): u64s as decimal strings, ids as 32 hex, the body base64. Every field of the record
 * is here, so a client never needs the raw bytes beside it.
 */
export const messageRecordJsonSchema = z
  .object({
    conversation_id: id128Text,
    seq: u64Text,
    message_id: id128Text,
    sender_id: id128Text,
    client_message_id: id128Text,
    kind: messageKind,
    control: z.boolean(),
    content_type: z.string(),
    body: z.string().describe('base64'),
    created_at: u64Text.describe('ms since epoch, u64 decimal'),
    retention: retentionJsonSchema,
  })
  .meta({ id: 'MessageRecord' });

export type RetentionJson = z.output<typeof retentionJsonSchema>;
export type MessageRecordJson = z.output<typeof messageRecordJsonSchema>;

export function retentionJson(r: RetentionClass): RetentionJson {
  return r.kind === 'ephemeral' ? { kind: r.kind, ttl_seconds: r.ttlSeconds } : { kind: r.kind };
}

export function messageRecordJson(r: MessageRecord): MessageRecordJson {
  return {
    conversation_id: r.conversationId,
    seq: r.seq.toString(),
    message_id: r.messageId,
    sender_id: r.senderId,
    client_message_id: r.clientMessageId,
    kind: r.kind,
    control: r.control,
    content_type: r.contentType,
    body: Buffer.from(r.body).toString('base64'),
    created_at: r.createdAt.toString(),
    retention: retentionJson(r.retention),
  };
}
