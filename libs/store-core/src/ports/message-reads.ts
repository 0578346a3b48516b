import type { Id128 } from '../model/ids';
import type { MessageRecord, Viewer } from '../model/message';
import type { HistoryAuthorizer } from './history-authorizer';

export type HistoryDirection = 'older' | 'newer';

export interface HistoryQuery {
  readonly direction: HistoryDirection;
  /** Exclusive anchor seq; null = from the newest (older) or from the oldest (newer). */
  readonly anchor: bigint | null;
  /** 1 … 1000. */
  readonly maxItems: number;
  /** ≥ 1. The first item may exceed it; after that truncation is strict. */
  readonly maxBytes: number;
}

/** One history item: the record and its canonical stored bytes (returned byte for byte). */
export interface HistoryItem {
  readonly record: MessageRecord;
  readonly bytes: Uint8Array;
}

export interface HistoryPage {
  /** In the query's direction (older: descending seq; newer: ascending). */
  readonly items: readonly HistoryItem[];
  /** True when more index rows exist in the direction after the last item. */
  readonly hasMore: boolean;
  /** Anchor for the next page (seq of the last item), or null when no item was returned. */
  readonly nextAnchor: bigint | null;
}

export interface SummaryQuery {
  readonly conversationId: Id128;
  /** Highest seq the viewer has read (u64; 0 = nothing). */
  readonly readSeq: bigint;
}

export const UNREAD_PRECISE_LIMIT = 100;

export interface ConversationSummary {
  readonly conversationId: Id128;
  /** Highest issued/recorded seq visible in the history index; 0 when empty. */
  readonly headSeq: bigint;
  /** The newest record (null when the conversation has none). */
  readonly last: MessageRecord | null;
  /** Unread count, capped at `UNREAD_PRECISE_LIMIT` when not precise. */
  readonly unread: number;
  /** False when more than `UNREAD_PRECISE_LIMIT` index rows follow `readSeq`. */
  readonly precise: boolean;
}

/** What the writer's read routes use: history pages and per-conversation summaries (unread counts). */
export interface MessageReads {
  /**
   * A directional page of history. Calls `authorizer` before any read (deny → `ForbiddenError`).
   * Missing record, undecodable record or disagreeing coordinates → `CorruptEntryError`; an
   * Ephemeral record that expired between index read and record read is not corruption (it is left out).
   */
  historyPage(authorizer: HistoryAuthorizer, viewer: Viewer, conversationId: Id128, query: HistoryQuery): Promise<HistoryPage>;

  /**
   * Per conversation: head seq, last record, unread = records with seq > readSeq, sender ≠ viewer,
   * kind normal|edited, not control; reads at most `UNREAD_PRECISE_LIMIT` index rows after readSeq
   * (beyond: `unread = UNREAD_PRECISE_LIMIT, precise = false`). Results in input order.
   */
  conversationSummaries(viewer: Viewer, queries: readonly SummaryQuery[]): Promise<ConversationSummary[]>;
}
