import { CorruptEntryError, ForbiddenError, InvalidInputError, U63_MAX } from '@qim/store-core';
import type {
  Clock,
  ConversationSummary,
  HistoryAuthorizer,
  HistoryItem,
  HistoryPage,
  HistoryQuery,
  Id128,
  MessageReads,
  MessageRecord,
  SummaryQuery,
  Viewer,
} from '@qim/store-core';
import type { RedisKeys } from '../keys/redis-keys';
import { u64FromHex16 } from '../redis/hex64';
import type { RedisIo } from '../redis/redis-io';
import { ScriptReply } from '../redis/script-reply';
import { conversationSummaryCall, historyPageCall } from './message-script-args';
import { decodeStoredRecord } from './stored-commit';

const MAX_HISTORY_ITEMS = 1000;

function validateQuery(q: HistoryQuery): void {
  if (q.direction !== 'older' && q.direction !== 'newer') throw new InvalidInputError('direction must be older or newer');
  if (!Number.isInteger(q.maxItems) || q.maxItems < 1 || q.maxItems > MAX_HISTORY_ITEMS)
    throw new InvalidInputError(`maxItems must be an integer 1…${MAX_HISTORY_ITEMS}`);
  if (!Number.isInteger(q.maxBytes) || q.maxBytes < 1) throw new InvalidInputError('maxBytes must be an integer ≥ 1');
  if (q.anchor !== null && (typeof q.anchor !== 'bigint' || q.anchor < 0n || q.anchor > U63_MAX)) throw new InvalidInputError('anchor must be a u64 seq');
}

function checkCoordinates(r: MessageRecord, tenantId: Id128, conversationId: Id128, seq: bigint): MessageRecord {
  if (r.tenantId !== tenantId || r.conversationId !== conversationId || r.seq !== seq) {
    throw new CorruptEntryError(`record at seq ${seq} carries other coordinates (${r.tenantId}/${r.conversationId}/${r.seq})`);
  }
  return r;
}

/** history_page and conversation_summaries: one read script per page / per conversation. */
export class RedisHistoryReads implements MessageReads {
  constructor(
    private readonly io: RedisIo,
    private readonly keys: RedisKeys,
    private readonly clock: Clock,
  ) {}

  async historyPage(authorizer: HistoryAuthorizer, viewer: Viewer, conversationId: Id128, query: HistoryQuery): Promise<HistoryPage> {
    validateQuery(query);
    if (!(await authorizer.canReadHistory(viewer, conversationId))) throw new ForbiddenError('viewer may not read this conversation');
    const conv = this.keys.conversation(viewer.tenantId, conversationId);
    const reply = ScriptReply.of(await this.io.script(historyPageCall(conv, query, this.clock.nowMs()), 'read'), 'historyPage');
    const items: HistoryItem[] = [];
    for (let i = 2; i < reply.length; i += 2) {
      const seq = u64FromHex16(reply.buf(i), 'history seq');
      const bytes = reply.bufOrNull(i + 1);
      if (bytes === null) throw new CorruptEntryError(`history index row ${seq} has no record`);
      items.push({ record: checkCoordinates(decodeStoredRecord(bytes), viewer.tenantId, conversationId, seq), bytes });
    }
    const last = items[items.length - 1];
    return { items, hasMore: reply.int(1) === 1, nextAnchor: last === undefined ? null : last.record.seq };
  }

  async conversationSummaries(viewer: Viewer, queries: readonly SummaryQuery[]): Promise<ConversationSummary[]> {
    queries.forEach((q) => {
      if (typeof q.readSeq !== 'bigint' || q.readSeq < 0n || q.readSeq > U63_MAX) throw new InvalidInputError('readSeq must be a u64');
    });
    const now = this.clock.nowMs();
    const calls = queries.map((q) => conversationSummaryCall(this.keys.conversation(viewer.tenantId, q.conversationId), now, q.readSeq, viewer.userId));
    const replies = await this.io.scripts(calls, 'read');
    return queries.map((q, i) => {
      const reply = ScriptReply.of(replies[i], 'conversationSummaries');
      const head = reply.buf(1);
      if (head.length === 0) return { conversationId: q.conversationId, headSeq: 0n, last: null, unread: reply.int(3), precise: reply.int(4) === 1 };
      const headSeq = u64FromHex16(head, 'head seq');
      const bytes = reply.bufOrNull(2);
      if (bytes === null) throw new CorruptEntryError(`history head ${headSeq} has no record`);
      const last = checkCoordinates(decodeStoredRecord(bytes), viewer.tenantId, q.conversationId, headSeq);
      return { conversationId: q.conversationId, headSeq, last, unread: reply.int(3), precise: reply.int(4) === 1 };
    });
  }
}
