import type { MessageRecord, RetentionClass } from '@qim/store-core';
import { z } from 'zod';

export const retentionJsonSchema = z.object({ kind: z.string(), ttl_seconds: z.number().optional() });

/** Wire form of a stored message (u64s as decimal strings, body base64). */
export const recordJsonSchema = z.object({
  conversation_id: z.string(),
  seq: z.string(),
  message_id: z.string(),
  sender_id: z.string(),
  client_message_id: z.string(),
  kind: z.string(),
  control: z.boolean(),
  content_type: z.string(),
  body: z.string().describe('base64'),
  created_at: z.string(),
  retention: retentionJsonSchema,
});

export function retentionJson(r: RetentionClass): z.infer<typeof retentionJsonSchema> {
  return r.kind === 'ephemeral' ? { kind: r.kind, ttl_seconds: r.ttlSeconds } : { kind: r.kind };
}

export function recordJson(r: MessageRecord): z.infer<typeof recordJsonSchema> {
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
