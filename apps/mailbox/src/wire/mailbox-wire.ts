import type { Id128, MailboxEntry } from '@qim/store-core';
import { decodeMessageRecord } from '@qim/store-core';
import { z } from 'zod';

const id128 = z
  .string()
  .regex(/^[0-9a-f]{32}$/, 'must be 32 lowercase hex characters')
  .transform((s) => s as Id128);
const u64 = z
  .string()
  .regex(/^(0|[1-9][0-9]{0,18})$/, 'must be a decimal u64 string')
  .transform(BigInt)
  .refine((v) => v < 1n << 63n, 'must be below 2^63');

export const userParams = z.object({ user: id128 }).strict();
export const shardParams = z.object({ shard: z.coerce.number().int().min(0).max(65_535) }).strict();

export const entriesQuery = (maxLimit: number) =>
  z
    .object({
      after: u64.optional().describe('exclusive mailbox seq cursor; absent = start of the current epoch'),
      limit: z.coerce.number().int().min(1).max(maxLimit).default(Math.min(100, maxLimit)),
    })
    .strict();

export const truncateBody = z.object({ before: u64 }).strict();

export const messageJson = z.object({
  conversation_id: z.string(),
  seq: z.string(),
  message_id: z.string(),
  sender_id: z.string(),
  kind: z.string(),
  control: z.boolean(),
  content_type: z.string(),
  body: z.string(),
  created_at: z.string(),
});

export const entryJson = z.object({
  seq: z.string(),
  created_at: z.string(),
  expires_at: z.string(),
  events: z.array(
    z.object({ ordinal: z.number(), event_id: z.string(), payload: z.string().describe('base64'), message: messageJson.nullable() }),
  ),
});

export const syncAnswer = z.object({
  entries: z.array(entryJson),
  next_after: z.string(),
  has_more: z.boolean(),
  up_to: z.string(),
});

/** Message events carry canonical record bytes; other payloads are passed through as base64 only. */
function messageOf(payload: Uint8Array): z.infer<typeof messageJson> | null {
  try {
    const r = decodeMessageRecord(payload);
    return {
      conversation_id: r.conversationId,
      seq: r.seq.toString(),
      message_id: r.messageId,
      sender_id: r.senderId,
      kind: r.kind,
      control: r.control,
      content_type: r.contentType,
      body: Buffer.from(r.body).toString('base64'),
      created_at: r.createdAt.toString(),
    };
  } catch {
    return null;
  }
}

export function entryJsonOf(e: MailboxEntry): z.infer<typeof entryJson> {
  return {
    seq: e.mailboxSeq.toString(),
    created_at: e.createdAt.toString(),
    expires_at: e.expiresAt.toString(),
    events: e.events.map((ev) => ({
      ordinal: ev.ordinal,
      event_id: ev.eventId,
      payload: Buffer.from(ev.payload).toString('base64'),
      message: messageOf(ev.payload),
    })),
  };
}
