import type { SyncPage } from '@qim/mailbox-runtime';
import type { MailboxEntry } from '@qim/store-core';
import { decodeMessageRecord } from '@qim/store-core';
import type { MessageRecordJson } from '@qim/wire';
import { id128, id128Text, messageRecordJson, messageRecordJsonSchema, u64, u64Text } from '@qim/wire';
import { z } from 'zod';

export const userParams = z.object({ user: id128.describe('the mailbox owner: the acting user') }).strict();
export const shardParams = z.object({ shard: z.coerce.number().int().min(0).max(65_535) }).strict();

/** Largest `max_bytes` of a sync page (as for history pages). */
export const SYNC_MAX_BYTES = 16 * 1024 * 1024;

/** What a sync page reads: the cursor and the page's budgets (of `GET …/entries` and of each page of a stream). */
const pageQueryFields = (maxLimit: number) => ({
  after: u64.optional().describe('exclusive mailbox seq cursor (of the first page of a stream); absent = start of the current epoch'),
  limit: z.coerce.number().int().min(1).max(maxLimit).default(Math.min(100, maxLimit)).describe('largest page (entries)'),
  max_bytes: z.coerce
    .number()
    .int()
    .min(1)
    .max(SYNC_MAX_BYTES)
    .default(1024 * 1024)
    .describe('byte budget of a page (event payloads); the first entry is always whole'),
});

/** The query of a streamed sync: a page's cursor and budgets; the server sets the waits and the stream's life. */
export const streamQuery = (maxLimit: number) => z.object(pageQueryFields(maxLimit)).strict();

export const entriesQuery = (maxLimit: number, maxWaitMs: number) =>
  z
    .object({
      ...pageQueryFields(maxLimit),
      wait_ms: z.coerce
        .number()
        .int()
        .min(0)
        .max(maxWaitMs)
        .default(0)
        .describe('long-poll: wait up to this long for entries after the cursor; an empty page when none came'),
    })
    .strict();

export const truncateBody = z.object({ before: u64.describe('mailbox seq: entries below it are dropped') }).strict();

export const truncateAnswer = z.object({ user: id128Text, truncated_before: u64Text });

export const entryJson = z.object({
  seq: u64Text,
  created_at: u64Text,
  expires_at: u64Text,
  events: z.array(
    z.object({
      ordinal: z.number().int(),
      event_id: z.string(),
      payload: z.string().nullable().describe('base64 of an event that is not a message; null when `message` carries it'),
      message: messageRecordJsonSchema.nullable(),
    }),
  ),
});

export const syncAnswer = z.object({
  entries: z.array(entryJson),
  next_after: u64Text,
  has_more: z.boolean(),
  up_to: u64Text.describe('the mailbox seq the shard frontier makes visible'),
});

/** Operator view of a shard (see `ShardStatusReader`); further fields pass through. */
export const shardStatusAnswer = z.looseObject({
  shard: z.number().int(),
  epoch: z.number().int(),
  assigned_here: z.boolean(),
  checked: z.boolean().describe("this process's check of the shard (frontier against Kafka's offsets) has ended: passed, or refused"),
  frontier: u64Text.nullable().describe('highest applied offset of the shard; null before the first page'),
  visible_up_to: u64Text.describe('the mailbox seq the frontier makes visible'),
  kafka: z
    .looseObject({ committed: z.string().nullable(), low: z.string(), end: z.string(), lag: z.string(), unapplied: z.string() })
    .nullable()
    .describe('group offsets of the shard partition (decimal strings); null without Kafka'),
  stalled: z.looseObject({ since: z.string(), page_from_offset: u64Text, reason: z.string(), attempts: z.number() }).nullable(),
  refused: z.looseObject({ kind: z.string(), since: z.string(), reason: z.string(), resolve: z.string() }).nullable(),
  retry: z.looseObject({ attempts: z.number(), error: z.string(), retry_at: z.string() }).nullable(),
  pages_applied: z.number().int(),
  last_error: z.string().nullable(),
});

/** Message events carry canonical record bytes; other payloads are passed through as base64 only. */
function messageOf(payload: Uint8Array): MessageRecordJson | null {
  try {
    return messageRecordJson(decodeMessageRecord(payload));
  } catch {
    return null;
  }
}

/** An entry on the wire: each event's bytes are sent once — as the decoded message, or else as raw base64. */
export function entryJsonOf(e: MailboxEntry): z.output<typeof entryJson> {
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

/** A sync page as its answer body: of `GET …/entries` and of each `page` event of a stream. */
export function syncAnswerOf(page: SyncPage): z.output<typeof syncAnswer> {
  return { entries: page.entries.map(entryJsonOf), next_after: page.nextAfter.toString(), has_more: page.hasMore, up_to: page.upTo.toString() };
}
