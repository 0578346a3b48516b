import type { Id128, MailboxGcConfig, MailboxStore, ManualClock, MessageStore, ShardEpoch } from '@qim/store-core';

/**
 * What a backend gives the contract suite. Hooks that reach below the store interface exist only to
 * damage or observe stored data the way a real fault would; the suite never uses them to fake a result.
 */
export interface MessageStoreHarness {
  readonly store: MessageStore;
  /** The injected clock when `store.capabilities.injectableClock`; null when real server time rules. */
  readonly clock: ManualClock | null;
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
  /** Removes everything this harness created and closes connections. */
  close(): Promise<void>;
}

export type MessageHarnessFactory = () => Promise<MessageStoreHarness>;
export type MailboxHarnessFactory = () => Promise<MailboxStoreHarness>;
