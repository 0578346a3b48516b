import type { CommitState, Id128 } from '@qim/store-core';
import { MemoryKvTable, MemoryTable, ReadCounter } from '../storage/memory-tables';

/** `message_commit`: the identity, the complete encoded intent and the state (aux fact, TTL from reserve). */
export interface CommitRow {
  readonly identity: Buffer;
  /** `encodeCommitIntent` bytes. */
  readonly intent: Buffer;
  readonly state: CommitState;
  readonly createdAt: bigint;
  readonly committedAt: bigint | null;
}

/** `commit_recovery`: one entry per reserve attempt, written before the seq is allocated (aux fact). */
export interface RecoveryRow {
  readonly createdAt: bigint;
  /** `commitKeyString` of the commit key. */
  readonly key: string;
  readonly tenantId: Id128;
  readonly senderId: Id128;
  readonly clientMessageId: Id128;
}

/** A seq claim (`SeqClaim`) of one commit key at its conversation; expires with the commit's aux facts. */
export interface SeqClaimRow {
  readonly identity: Buffer;
  readonly seq: bigint;
  readonly messageId: Id128;
  readonly createdAt: bigint;
}

/** One history index row (same expiry as its record). */
export interface IndexRow {
  readonly messageId: Id128;
}

/** Recovery index partitions are hourly. */
export const RECOVERY_BUCKET_MS = 3_600_000n;

/** `(tenant, conversation)` partition key. */
export function conversationKey(tenantId: Id128, conversationId: Id128): string {
  return `${tenantId}:${conversationId}`;
}

/**
 * The storage of the Memory MessageStore: the same facts the Scylla tables hold, as encoded bytes.
 * Several stores may share one backend (as several writer processes share one keyspace).
 */
export class MemoryMessageBackend {
  readonly counter = new ReadCounter();
  /** `message_commit`, key `commitKeyString`. */
  readonly commits = new MemoryKvTable<CommitRow>(this.counter);
  /** `conversation_sequence`: highest issued seq, key `conversationKey`. Never expires. */
  readonly sequences = new MemoryKvTable<bigint>(this.counter);
  /** Seq claims: partition `conversationKey`, clustering `commitKeyString`; written with the seq allocation. */
  readonly seqClaims = new MemoryTable<string, SeqClaimRow>(this.counter);
  /** `message_record`: canonical record bytes by seq (ephemeral rows expire). */
  readonly records = new MemoryTable<bigint, Buffer>(this.counter);
  /** `history_index`: one row per recorded seq, same expiry as the record. */
  readonly historyIndex = new MemoryTable<bigint, IndexRow>(this.counter);
  /** `commit_recovery`: partition = hour of created_at, clustering = padded created_at + key. */
  readonly recovery = new MemoryTable<string, RecoveryRow>(this.counter);

  /** Rows held per table (Scylla table names), expired ones not yet swept included: the soak's storage census. */
  census(): Record<string, number> {
    return {
      commit: this.commits.physicalRows(),
      seq_claim: this.seqClaims.physicalRows(),
      commit_recovery: this.recovery.physicalRows(),
      conversation_sequence: this.sequences.physicalRows(),
      message_record: this.records.physicalRows(),
      history_index: this.historyIndex.physicalRows(),
    };
  }

  /** Storage reads so far (every point read or scan of every table). */
  get reads(): number {
    return this.counter.reads;
  }

  /** Fault injection: overwrite a record with undecodable bytes (keeps its index row and expiry). */
  corruptRecord(tenantId: Id128, conversationId: Id128, seq: bigint): boolean {
    return this.records.damage(conversationKey(tenantId, conversationId), seq, Buffer.from('not a record'));
  }

  /** Fault injection: remove a record, keeping its history index row. */
  removeRecord(tenantId: Id128, conversationId: Id128, seq: bigint): boolean {
    return this.records.remove(conversationKey(tenantId, conversationId), seq);
  }

  /** Fault injection: set the highest issued seq back (a lost increment); false when the conversation has none. */
  rewindSequence(tenantId: Id128, conversationId: Id128, highestIssued: bigint): boolean {
    const key = conversationKey(tenantId, conversationId);
    if (this.sequences.get(key, 0n) === null) return false;
    this.sequences.put(key, highestIssued, null);
    return true;
  }
}
