import { InvalidInputError, UNREAD_PRECISE_LIMIT, isId128 } from '@qim/store-core';
import type { Clock, ConversationSummary, MessageRecord, SummaryQuery, Viewer } from '@qim/store-core';
import { conversationKey } from './memory-message-backend';
import type { MemoryMessageBackend } from './memory-message-backend';
import { readRecordBehindIndex } from './record-reads';

/** Whether a record counts as unread for `viewer`: someone else's, normal or edited, not control. */
function countsAsUnread(r: MessageRecord, viewer: Viewer): boolean {
  return r.senderId !== viewer.userId && (r.kind === 'normal' || r.kind === 'edited') && !r.control;
}

/**
 * Head seq, newest record and unread count per conversation, in input order. Unread reads at most
 * `UNREAD_PRECISE_LIMIT` index rows after `readSeq`; more rows than that → the limit, `precise: false`.
 */
export function conversationSummaries(backend: MemoryMessageBackend, clock: Clock, viewer: Viewer, queries: readonly SummaryQuery[]): ConversationSummary[] {
  if (!isId128(viewer.tenantId) || !isId128(viewer.userId)) throw new InvalidInputError('summaries: viewer ids must be canonical');
  for (const q of queries) {
    if (!isId128(q.conversationId) || typeof q.readSeq !== 'bigint' || q.readSeq < 0n) throw new InvalidInputError('summaries: bad query');
  }
  return queries.map((q) => {
    const pk = conversationKey(viewer.tenantId, q.conversationId);
    const coords = (seq: bigint) => ({ tenantId: viewer.tenantId, conversationId: q.conversationId, seq });
    const rows = backend.historyIndex.scan(pk, clock.nowMs()).map(([seq]) => seq);

    let last: MessageRecord | null = null;
    let headSeq = 0n;
    for (let i = rows.length - 1; i >= 0 && last === null; i--) {
      const read = readRecordBehindIndex(backend, clock, pk, coords(rows[i]!));
      if (read !== null) [last, headSeq] = [read.record, read.record.seq];
    }

    const after = rows.filter((s) => s > q.readSeq).slice(0, UNREAD_PRECISE_LIMIT + 1);
    if (after.length > UNREAD_PRECISE_LIMIT) return { conversationId: q.conversationId, headSeq, last, unread: UNREAD_PRECISE_LIMIT, precise: false };
    let unread = 0;
    for (const seq of after) {
      const read = readRecordBehindIndex(backend, clock, pk, coords(seq));
      if (read !== null && countsAsUnread(read.record, viewer)) unread++;
    }
    return { conversationId: q.conversationId, headSeq, last, unread, precise: true };
  });
}
