import type { RetentionClass, SendOutcome, SendRequest } from '@qim/store-core';
import { z } from 'zod';
import { base64Body, id128, id128Text, messageKind, retention, u64Text } from '@qim/wire';

/** `POST /v1/messages` body. The sender is the acting user (x-qim-user), never a body field. */
export const sendBodySchema = z
  .object({
    client_message_id: id128,
    conversation_id: id128,
    kind: messageKind.default('normal'),
    control: z.boolean().default(false),
    content_type: z.string().max(255).default('text/plain'),
    body: base64Body,
    retention: retention.default({ kind: 'default' }),
  })
  .strict();

export type SendBody = z.output<typeof sendBodySchema>;

function retentionOf(r: SendBody['retention']): RetentionClass {
  return r.kind === 'ephemeral' ? { kind: 'ephemeral', ttlSeconds: r.ttl_seconds } : { kind: r.kind };
}

export function sendRequestOf(body: SendBody, tenantId: SendRequest['tenantId'], senderId: SendRequest['senderId']): SendRequest {
  return {
    tenantId,
    senderId,
    clientMessageId: body.client_message_id,
    conversationId: body.conversation_id,
    kind: body.kind,
    control: body.control,
    contentType: body.content_type,
    body: body.body,
    retention: retentionOf(body.retention),
  };
}

export const sendAnswerSchema = z.object({
  conversation_id: id128Text,
  seq: u64Text,
  message_id: id128Text,
  created_at: u64Text.describe('ms since epoch, u64 decimal'),
  replay: z.boolean().describe('true when this client_message_id was already committed: the first answer again'),
});

export function sendAnswerOf(o: SendOutcome): z.infer<typeof sendAnswerSchema> {
  return {
    conversation_id: o.intent.request.conversationId,
    seq: o.seq.toString(),
    message_id: o.messageId,
    created_at: o.createdAt.toString(),
    replay: o.replay,
  };
}
