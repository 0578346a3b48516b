import type { QimResyncRequiredError } from '../errors/qim-error';
import type { Id128 } from './id128';
import type { Message } from './message';

/** One event of a mailbox entry; message events carry the decoded message. */
export interface MailboxEvent {
  readonly ordinal: number;
  readonly eventId: Id128;
  /** The raw event bytes; null when the service sent them decoded as `message` only. */
  readonly payload: Uint8Array | null;
  /** The message of a message event; null for other payloads. */
  readonly message: Message | null;
}

/** One entry of the acting user's mailbox: the events delivered at one mailbox seq. */
export interface MailboxEntry {
  readonly seq: bigint;
  /** ms since the Unix epoch. */
  readonly createdAt: bigint;
  /** ms since the Unix epoch; never renewed. */
  readonly expiresAt: bigint;
  readonly events: readonly MailboxEvent[];
}

/** One sync answer. Persist `nextAfter` once the entries are processed: it is the cursor to resume from. */
export interface SyncPage {
  /** The cursor this page was read after (null: from the start of the current epoch). */
  readonly after: bigint | null;
  readonly entries: readonly MailboxEntry[];
  readonly nextAfter: bigint;
  /** True when more entries are ready now (the next request will not wait). */
  readonly hasMore: boolean;
  /** The highest seq proven delivered when the page was read. */
  readonly upTo: bigint;
}

export interface SyncPageOptions {
  /** Exclusive cursor; absent or null: from the start of the current epoch. */
  readonly after?: bigint | null;
  /** Events per page (service default 100, bounded by its QIM_SYNC_MAX_LIMIT). */
  readonly limit?: number;
  /** Byte budget of a page's event payloads (service default 1 MiB); the first entry is always whole. */
  readonly maxBytes?: number;
  /** Ask the service to hold the request until entries arrive, at most this long (ms). */
  readonly waitMs?: number;
  readonly signal?: AbortSignal;
}

/** A streamed sync (`stream()`): where it starts and each page's budgets; the service sets the waits and the stream's life. */
export interface StreamOptions {
  /** Exclusive cursor of the first page; absent or null: from the start of the current epoch. */
  readonly after?: bigint | null;
  /** Entries per page (service default 100, bounded by its QIM_SYNC_MAX_LIMIT). */
  readonly limit?: number;
  /** Byte budget of a page's event payloads (service default 1 MiB); the first entry is always whole. */
  readonly maxBytes?: number;
  /** Aborting closes the stream and ends the iteration quietly. */
  readonly signal?: AbortSignal;
}

/** Told to `onResync` when the service refused the cursor (410): the device must drop what it derived from it. */
export interface ResyncEvent {
  readonly error: QimResyncRequiredError;
  /** The refused cursor. */
  readonly cursor: bigint | null;
}

export interface SyncOptions {
  /** Start after this cursor; default: the start of the current epoch. */
  readonly after?: bigint | null;
  readonly limit?: number;
  readonly maxBytes?: number;
  /** Keep going after catching up, waiting for new entries (default false: end when caught up). */
  readonly follow?: boolean;
  /**
   * Long-poll wait per request once caught up in follow mode (ms, default 20 000). 0 turns long
   * polling off. A wait above the service's bound is lowered to it; a service that does not know
   * `wait_ms` is detected and polled every `pollIntervalMs`.
   */
  readonly waitMs?: number;
  /** Pause between two empty polls when long polling is unavailable (ms, default 1 000). */
  readonly pollIntervalMs?: number;
  /**
   * Called on `410` (`CURSOR_EXPIRED`, `EPOCH_MISMATCH`); sync then continues from the start.
   * Without it the iterator throws `QimResyncRequiredError`. A refusal of the start itself is thrown.
   */
  readonly onResync?: (event: ResyncEvent) => void | Promise<void>;
  /** Aborting ends the iteration quietly (also during a long poll). */
  readonly signal?: AbortSignal;
}
