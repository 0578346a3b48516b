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

/** Largest `max_bytes` of a sync page (as for history pages). */
export const SYNC_MAX_BYTES = 16 * 1024 * 1024;

export const entriesQuery = (maxLimit: number, maxWaitMs: number) =>
  z
    .object({
      after: u64.optional().describe('exclusive mailbox seq cursor; absent = start of the current epoch'),
      limit: z.coerce.number().int().min(1).max(maxLimit).default(Math.min(100, maxLimit)),
      max_bytes: z.coerce
        .number()
        .int()
        .min(1)
        .max(SYNC_MAX_BYTES)
        .default(1024 * 1024)
        .describe('byte budget of the page (event payloads); the first entry is always whole'),
      wait_ms: z.coerce
        .number()
        .int()
        .min(0)
        .max(maxWaitMs)
        .default(0)
        .describe('long-poll: wait up to this long for entries after the cursor; an empty page when none came'),
    })
    .strict();

export const truncateBody = z.object({ before: u64 }).strict();

/** Every field of the message record, so nothing is lost by not sending the raw payload as well. */
export const messageJson = z.object({
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
  retention: z.object({ kind: z.string(), ttl_seconds: z.number().optional() }),
});

export const entryJson = z.object({
  seq: z.string(),
  created_at: z.string(),
  expires_at: z.string(),
  events: z.array(
    z.object({
      ordinal: z.number(),
      event_id: z.string(),
      payload: z.string().nullable().describe('base64 of an event that is not a message; null when `message` carries it'),
      message: messageJson.nullable(),
    }),
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
      client_message_id: r.clientMessageId,
      kind: r.kind,
      control: r.control,
      content_type: r.contentType,
      body: Buffer.from(r.body).toString('base64'),
      created_at: r.createdAt.toString(),
      retention: r.retention.kind === 'ephemeral' ? { kind: r.retention.kind, ttl_seconds: r.retention.ttlSeconds } : { kind: r.retention.kind },
    };
  } catch {
    return null;
  }
}

/** An entry on the wire: each event's bytes are sent once — as the decoded message, or else as raw base64. */
export function entryJsonOf(e: MailboxEntry): z.infer<typeof entryJson> {
  return {
    seq: e.mailboxSeq.toString(),
    created_at: e.createdAt.toString(),
    expires_at: e.expiresAt.toString(),
    events: e.events.map((ev) => {
      const message = messageOf(ev.payload);
      return { ordinal: ev.ordinal, event_id: ev.eventId, payload: message ? null : Buffer.from(ev.payload).toString('base64'), message };
    }),
  };
}
