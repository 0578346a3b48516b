import { InvalidInputError, U63_MAX, UNREAD_PRECISE_LIMIT } from '@qim/store-core';
import type { ConversationSummary, Id128, MessageRecord, SummaryQuery, Viewer } from '@qim/store-core';
import { toCqlBigint } from '../session/statements';
import { mapBounded } from './bounded';
import { RECORD_READ_CONCURRENCY, conversationKey, indexRowOf, readRecordBytes, resolveItem } from './history-reads';
import type { IndexRow } from './history-reads';
import type { MessageContext } from './message-context';

/** Conversations summarised concurrently. */
export const SUMMARY_CONCURRENCY = 4;
/** Newest index rows probed for `last` (an expiring Ephemeral head falls back to the next one). */
const HEAD_PROBE_ROWS = 4;

function counts(viewer: Viewer, r: MessageRecord): boolean {
  return r.senderId !== viewer.userId && (r.kind === 'normal' || r.kind === 'edited') && !r.control;
}

async function records(ctx: MessageContext, viewer: Viewer, conv: Id128, rows: readonly IndexRow[]): Promise<(MessageRecord | null)[]> {
  const bytes = await readRecordBytes(ctx, viewer.tenantId, conv, rows);
  return mapBounded(rows, RECORD_READ_CONCURRENCY, async (row) => (await resolveItem(ctx, viewer.tenantId, conv, row, bytes.get(row.seq)))?.record ?? null);
}

async function summarize(ctx: MessageContext, viewer: Viewer, q: SummaryQuery): Promise<ConversationSummary> {
  const key = conversationKey(viewer.tenantId, q.conversationId);
  const head = (await ctx.cql.run(ctx.index.olderFromHead, [...key, HEAD_PROBE_ROWS])).rows.map(indexRowOf);
  const headSeq = head[0]?.seq ?? 0n;
  const last = (await records(ctx, viewer, q.conversationId, head)).find((r) => r !== null) ?? null;
  if (q.readSeq >= headSeq) return { conversationId: q.conversationId, headSeq, last, unread: 0, precise: true };
  const window = (await ctx.cql.run(ctx.index.newerFrom, [...key, toCqlBigint(q.readSeq, 'readSeq'), UNREAD_PRECISE_LIMIT + 1])).rows.map(indexRowOf);
  if (window.length > UNREAD_PRECISE_LIMIT) return { conversationId: q.conversationId, headSeq, last, unread: UNREAD_PRECISE_LIMIT, precise: false };
  const unread = (await records(ctx, viewer, q.conversationId, window)).filter((r) => r !== null && counts(viewer, r)).length;
  return { conversationId: q.conversationId, headSeq, last, unread, precise: true };
}

/**
 * `conversationSummaries`: per conversation the index head, the newest record, and the unread count
 * over at most `UNREAD_PRECISE_LIMIT` index rows after `readSeq` (records read per seq bucket with
 * bounded concurrency); more rows than that → the limit and `precise: false`. Input order.
 */
export async function conversationSummaries(ctx: MessageContext, viewer: Viewer, queries: readonly SummaryQuery[]): Promise<ConversationSummary[]> {
  for (const q of queries) {
    if (typeof q.readSeq !== 'bigint' || q.readSeq < 0n || q.readSeq > U63_MAX) throw new InvalidInputError('readSeq must be a u64');
  }
  return mapBounded(queries, SUMMARY_CONCURRENCY, (q) => summarize(ctx, viewer, q));
}
