import type { Id128, MailboxGcConfig, MailboxStore, ManualClock, MessageStore, ShardEpoch } from '@qim/store-core';

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
  /** Overwrites the stored record bytes of `(tenant, conversation, seq)` with undecodable bytes. */
  corruptRecord(tenantId: Id128, conversationId: Id128, seq: bigint): Promise<void>;
  /** Removes the stored record of `(tenant, conversation, seq)`, keeping its history index row. */
  removeRecord(tenantId: Id128, conversationId: Id128, seq: bigint): Promise<void>;
  /** Number of read operations the backend has sent to its storage since the harness was made. */
  readCount(): number;
  /** Removes everything this harness created and closes connections. */
  close(): Promise<void>;
}

export interface MailboxStoreHarness {
  /** A store bound to `shardEpoch` with `gc`; every store of one harness shares the same storage. */
  open(shardEpoch: ShardEpoch, gc: MailboxGcConfig): Promise<MailboxStore>;
  /** The injected clock shared by every store of this harness, or null when real server time rules. */
  readonly clock: ManualClock | null;
  /** Removes the retention bucket proof of `(tenant, user, epoch, day)` (a lost proof). */
  removeBucketProof(tenantId: Id128, userId: Id128, epoch: number, day: number): Promise<void>;
  /** The user's stored trim (null when never set), read directly from storage. */
  readTrim(tenantId: Id128, userId: Id128): Promise<bigint | null>;
  /** Overwrites the stored entry bytes of `(tenant, user, seq)` with undecodable bytes. */
  corruptEntry(tenantId: Id128, userId: Id128, mailboxSeq: bigint): Promise<void>;
  /**
   * Removes the completion fact of chunk `chunkId` of `lane` of a dispatch (a lost completion row),
   * leaving the dispatch's progress — including a `completedAt` — as it is.
   */
  removeChunkCompletion(shard: number, dispatchId: Id128, lane: number, chunkId: number): Promise<void>;
  /**
   * Number of live (unexpired) bookkeeping rows of one dispatch, read directly from storage: its
   * progress row, observation index rows, lane source rows (all 64 lanes), chunk completion rows and
   * completed-index row. Lets the suite see that GC really makes every one of them vanish.
   */
  countDispatchFacts(shard: number, dispatchId: Id128): Promise<number>;
  /** Removes everything this harness created and closes connections. */
  close(): Promise<void>;
}

export type MessageHarnessFactory = () => Promise<MessageStoreHarness>;
export type MailboxHarnessFactory = () => Promise<MailboxStoreHarness>;
