import type { Id128, MailboxGcConfig, MailboxStore, MessageStore, ShardEpoch } from '@qim/store-core';
import type { ManualClock } from '@qim/store-core/testing';

/**
 * What a backend gives the contract suite. Hooks that reach below the store interface exist only to
 * damage or observe stored data the way a real fault would; the suite never uses them to fake a result.
 *
 * Time: when `clock` is non-null the suite moves it (`ManualClock.set/advance`) and every expiry must
 * follow it. When `clock` is null (real server TTLs, e.g. Scylla) the suite waits real time instead;
 * every such wait is short (≤ ~5 s) because the suite picks short TTLs (ephemeral 1 s, retention and GC
 * delays computed from "now") — the only TTL it cannot choose is `commitAuxTtlMs`, see below.
 */
export interface MessageStoreHarness {
  readonly store: MessageStore;
  /** The injected clock when `store.capabilities.injectableClock`; null when real server time rules. */
  readonly clock: ManualClock | null;
  /**
   * The lifetime (ms) of the auxiliary commit facts (commit row, recovery index row) the store was
   * built with, counted from the reserve. Production is 7 200 000 (2 h). With an injected clock it
   * must be exactly that (the suite checks it). Without one the backend must be built with a short
   * value (≤ 3 000 ms) for the contract run, so that the expiry case runs on real time instead of
   * being skipped; the case fails when the value is longer.
   */
  readonly commitAuxTtlMs: bigint;
  /**
   * Another store over the same storage, as a second writer process would open it: its own
   * connections, the same clock and settings. Closed by `close()`.
   */
  openStore(): Promise<MessageStore>;
  /** Overwrites the stored record bytes of `(tenant, conversation, seq)` with undecodable bytes. */
  corruptRecord(tenantId: Id128, conversationId: Id128, seq: bigint): Promise<void>;
  /** Removes the stored record of `(tenant, conversation, seq)`, keeping its history index row. */
  removeRecord(tenantId: Id128, conversationId: Id128, seq: bigint): Promise<void>;
  /**
   * Sets the highest issued seq of `(tenant, conversation)` back to `highestIssued`, as a server that
   * lost an acknowledged increment (e.g. an OS crash under `appendfsync everysec`) would hold it:
   * the next reserve is handed a seq that may already hold another message's record.
   */
  rewindSequence(tenantId: Id128, conversationId: Id128, highestIssued: bigint): Promise<void>;
  /**
   * Two more stores over the same storage and clock: `dying` crashes at `point` (see
   * `MessageCrashPoint`), `healthy` is what the client's retry or the recovery runner then uses. A
   * real-time backend may give both a longer commit lifetime than `commitAuxTtlMs` (a retry may first
   * wait out the dead reserve's claim lease). Closed by `close()`.
   */
  openCrashPair(point: MessageCrashPoint): Promise<MessageCrashPair>;
  /** Number of read operations the backend has sent to its storage since the harness was made. */
  readCount(): number;
  /** Removes everything this harness created and closes connections. */
  close(): Promise<void>;
}

/**
 * Simulated crash points inside a MessageStore call: the store throws `MESSAGE_CRASH_TEXT` there,
 * leaving what a kill -9 at that point leaves (no clean-up, no abandon). A backend whose steps are
 * merged (one atomic script writes what another backend writes in two steps) crashes right after
 * the merged step and says so in its harness.
 */
export type MessageCrashPoint =
  /** `reserve`: the recovery index entry is durable; the seq may or may not be spent; no commit. */
  | 'reserve:after-recovery-entry'
  /** `reserve`: the recovery entry and the seq are durable; the commit may not be complete. */
  | 'reserve:after-seq'
  /** `reserve`: the RESERVED commit is durable; the caller got no answer. */
  | 'reserve:after-commit'
  /** `putRecord`: the record is durable; its history index row and the RECORDED move may not be. */
  | 'put-record:after-record'
  /** `putRecord`: record and history index row are durable; the commit is still RESERVED. */
  | 'put-record:after-index';

export const MESSAGE_CRASH_POINTS: readonly MessageCrashPoint[] = Object.freeze([
  'reserve:after-recovery-entry',
  'reserve:after-seq',
  'reserve:after-commit',
  'put-record:after-record',
  'put-record:after-index',
]);

/** The text of the error a crashing store throws (followed by the point). */
export const MESSAGE_CRASH_TEXT = 'simulated crash inside the store call at';

/** A store that dies at a point and a healthy one (a restarted or other writer), over one storage. */
export interface MessageCrashPair {
  readonly dying: MessageStore;
  readonly healthy: MessageStore;
}

/**
 * Simulated crash points inside `applyPage` (a test seam each backend honours when given): the store
 * throws an error at that point, leaving what a kill -9 there would leave.
 */
export interface MailboxFaults {
  /** Crash after this many entry writes of the page have been acknowledged (frontier not written). */
  readonly crashAfterEntries?: number;
  /** Crash after the dispatch index and every entry of the page, before the frontier write. */
  readonly crashBeforeFrontier?: boolean;
}

export interface MailboxStoreHarness {
  /**
   * A store bound to `shardEpoch` with `gc`; every store of one harness shares the same storage.
   * `clockLagMs` (default 0): the store's clock runs that much behind the harness's time (`clock`, or
   * the real time when it is null) — a writer whose clock lags. Cases use it to see a write that was
   * far from its day's expiry when it was made (a fast path) and that expiry pass within the seconds
   * a real-time case may wait; the lag is outside the deployment's skew bound, so cases assert only
   * what must hold whatever the writer's clock (no silent gap), never what the lag saves.
   */
  open(shardEpoch: ShardEpoch, gc: MailboxGcConfig, faults?: MailboxFaults, clockLagMs?: bigint): Promise<MailboxStore>;
  /** The injected clock shared by every store of this harness, or null when real server time rules. */
  readonly clock: ManualClock | null;
  /** Removes the retention bucket proof of `(tenant, user, epoch, day)` (a lost proof). */
  removeBucketProof(tenantId: Id128, userId: Id128, epoch: number, day: number): Promise<void>;
  /** The user's stored trim (null when never set), read directly from storage. */
  readTrim(tenantId: Id128, userId: Id128): Promise<bigint | null>;
  /** Overwrites the stored entry bytes of `(tenant, user, seq)` with undecodable bytes. */
  corruptEntry(tenantId: Id128, userId: Id128, mailboxSeq: bigint): Promise<void>;
  /**
   * Damages the user's stored retention meta: `old-version` rewrites its format version as 3 (a row
   * of an older layout), `partial` drops its active ledger field (a half-written or hand-edited row;
   * Memory, which stores a blob, truncates it).
   */
  damageRetentionMeta(tenantId: Id128, userId: Id128, damage: 'old-version' | 'partial'): Promise<void>;
  /**
   * Whether the dispatch index still remembers `dispatchId` in `shardEpoch` (read directly from
   * storage). Lets the suite see that the memory of a dispatch ends at `createdAt + dispatchDedupeMs`.
   */
  dispatchIndexed(shardEpoch: ShardEpoch, dispatchId: Id128): Promise<boolean>;
  /** Removes everything this harness created and closes connections. */
  close(): Promise<void>;
}

export type MessageHarnessFactory = () => Promise<MessageStoreHarness>;
export type MailboxHarnessFactory = () => Promise<MailboxStoreHarness>;
