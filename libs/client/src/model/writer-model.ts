import type { QimError } from '../errors/qim-error';
import type { Id128 } from './id128';
import type { Message, MessageKind, Retention } from './message';

/** What to send. Only `conversationId` and `body` are required. */
export interface SendInput {
  readonly conversationId: Id128;
  /** A string is sent as its UTF-8 bytes. */
  readonly body: Uint8Array | string;
  /** Default: a fresh random id. Give one to repeat a send whose outcome is unknown. */
  readonly clientMessageId?: Id128;
  /** Default `normal`. */
  readonly kind?: MessageKind;
  /** Default false. */
  readonly control?: boolean;
  /** Default `text/plain`. */
  readonly contentType?: string;
  /** Default `{kind: 'default'}`. */
  readonly retention?: Retention;
}

/** The writer's answer to a send (the same on a repeat, with `replay: true`). */
export interface SendResult {
  readonly conversationId: Id128;
  readonly seq: bigint;
  readonly messageId: Id128;
  /** ms since the Unix epoch. */
  readonly createdAt: bigint;
  /** True when the writer had already committed this client message id: nothing new was written. */
  readonly replay: boolean;
  /** The client message id that was sent. */
  readonly clientMessageId: Id128;
}

/**
 * One send of `sendMany`, in input order: its result, or the typed error a single send of it would
 * have failed with (the error carries the same `clientMessageId`).
 */
export type SendManyItem =
  | { readonly ok: true; readonly clientMessageId: Id128; readonly result: SendResult }
  | { readonly ok: false; readonly clientMessageId: Id128; readonly error: QimError };

export type HistoryDirection = 'older' | 'newer';

export interface HistoryOptions {
  /** Default `older` (newest first). */
  readonly direction?: HistoryDirection;
  /** Start after this seq (exclusive); default: the newest (`older`) or the first (`newer`). */
  readonly anchor?: bigint;
  /** Items per page (1…1000; service default 50). */
  readonly maxItems?: number;
  /** Body bytes per page (service default 1 MiB). */
  readonly maxBytes?: number;
  readonly signal?: AbortSignal;
}

/** One page of a conversation's history. */
export interface HistoryPage {
  readonly conversationId: Id128;
  readonly direction: HistoryDirection;
  readonly items: readonly Message[];
  readonly hasMore: boolean;
  /** The anchor of the next page, null at the end. */
  readonly nextAnchor: bigint | null;
}

/** One conversation to summarise, with the acting user's read position. */
export interface SummaryRequest {
  readonly conversationId: Id128;
  /** The last seq the user has read (default 0). */
  readonly readSeq?: bigint;
}

export interface ConversationSummary {
  readonly conversationId: Id128;
  readonly headSeq: bigint;
  readonly last: Message | null;
  readonly unread: number;
  /** False when the unread count is an estimate. */
  readonly precise: boolean;
}
