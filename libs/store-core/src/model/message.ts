import type { Id128 } from './ids';

/** Message kinds. Only `normal` and `edited` count as unread. Codec byte in parentheses. */
export type MessageKind = 'normal' | 'edited' | 'recalled' | 'system';
export const MESSAGE_KINDS: readonly MessageKind[] = ['normal', 'edited', 'recalled', 'system'];

/**
 * Retention class of a message. Only `ephemeral` ever gets a TTL (its `ttlSeconds`, 1 … 31 536 000);
 * `default`, `tenant_custom` and `compliance_hold` are never expired or guessed by the store.
 */
export type RetentionClass =
  | { readonly kind: 'default' }
  | { readonly kind: 'ephemeral'; readonly ttlSeconds: number }
  | { readonly kind: 'tenant_custom' }
  | { readonly kind: 'compliance_hold' };

export const MAX_EPHEMERAL_TTL_SECONDS = 31_536_000;
export const MAX_BODY_BYTES = 65_536;
export const MAX_CONTENT_TYPE_BYTES = 255;

/** The canonical send request: everything a client asked for. Its encoding is the identity input. */
export interface SendRequest {
  readonly tenantId: Id128;
  readonly senderId: Id128;
  readonly clientMessageId: Id128;
  readonly conversationId: Id128;
  readonly kind: MessageKind;
  /** Control messages (receipts, typing, …) are stored but never counted as unread. */
  readonly control: boolean;
  /** UTF-8, at most `MAX_CONTENT_TYPE_BYTES` bytes. */
  readonly contentType: string;
  /** At most `MAX_BODY_BYTES` bytes. */
  readonly body: Uint8Array;
  readonly retention: RetentionClass;
}

/** The idempotency key of a send. */
export interface CommitKey {
  readonly tenantId: Id128;
  readonly senderId: Id128;
  readonly clientMessageId: Id128;
}

/** Where the outbox event landed in Kafka. */
export interface Publication {
  readonly topic: string;
  /** Kafka partition, 0 … 2^31−1. */
  readonly partition: number;
  /** Kafka offset (u64). */
  readonly offset: bigint;
}

/** Commit lifecycle, in order. Owned by `DurableMessageCommitter`. */
export type CommitState = 'RESERVED' | 'RECORDED' | 'OUTBOXED' | 'COMMITTED';
export const COMMIT_STATES: readonly CommitState[] = ['RESERVED', 'RECORDED', 'OUTBOXED', 'COMMITTED'];

/**
 * The complete, immutable description of one commit, fixed at reserve time (only `publication`
 * is filled in later, once). Enough to rebuild the record and republish byte-identically after a crash.
 */
export interface CommitIntent {
  readonly key: CommitKey;
  /** 32-byte SHA-256 of the canonical request encoding (`requestIdentity`). */
  readonly identity: Uint8Array;
  readonly request: SendRequest;
  /** Per-conversation sequence number (u64, ≥ 1). */
  readonly seq: bigint;
  readonly messageId: Id128;
  /** Milliseconds since the Unix epoch (u64). */
  readonly createdAt: bigint;
  /** Conversation members at reserve time, sorted ascending, unique. Not part of the identity. */
  readonly recipients: readonly Id128[];
  readonly publication: Publication | null;
}

/** What a store holds for a commit key. */
export interface CommitSnapshot {
  readonly intent: CommitIntent;
  readonly state: CommitState;
}

/** The stored message, built from the intent by `recordFromIntent` (a pure function). */
export interface MessageRecord {
  readonly tenantId: Id128;
  readonly conversationId: Id128;
  readonly seq: bigint;
  readonly messageId: Id128;
  readonly senderId: Id128;
  readonly clientMessageId: Id128;
  readonly kind: MessageKind;
  readonly control: boolean;
  readonly contentType: string;
  readonly body: Uint8Array;
  readonly createdAt: bigint;
  readonly retention: RetentionClass;
}

/** The acting user of a read. */
export interface Viewer {
  readonly tenantId: Id128;
  readonly userId: Id128;
}
