import { commitKeyString } from '@qim/store-core';
import type { CommitKey, CommitSnapshot, CommitState } from '@qim/store-core';

/** A commit as stored: the decoded snapshot, its stored intent bytes and when its row was born. */
export interface StoredCommit {
  readonly kind: 'commit';
  readonly snapshot: CommitSnapshot;
  /**
   * The row's `state` cell, which every conditional move names (`IF state = <stateCell>`). It is
   * `snapshot.state` except for a commit recorded by its record mark: RECORDED with a RESERVED cell.
   */
  readonly stateCell: CommitState;
  readonly intentBytes: Buffer;
  /** Write time (µs) of the `identity` cell, written once by the claiming INSERT: the row's birth; -1 when not read. */
  readonly bornMicros: bigint;
  /** Position of the commit's recovery index row (null when not read or not written). */
  readonly recoveryAt: bigint | null;
  /** The claim token its completion was bound to: every conditional move names it (this incarnation of the key only). */
  readonly token: Buffer | null;
  /**
   * Set only on a commit this store completed itself: when (this store's clock, ms, taken before the
   * read was sent) its reserve found no record at the commit's seq — the seq-free check, read
   * together with the completion. `putRecord` skips its own check while this is fresh
   * (`SEQ_FREE_FRESH_MS`); a row read from the table never has it.
   */
  readonly seqFreeAtMs?: bigint;
}

/** Commits remembered per store (the oldest goes first when full). */
const CAPACITY = 10_000;
/** An entry is used only this long after it was put, and only while this much is left of the commit's lifetime. */
const MAX_AGE_MS = 30_000n;
const MIN_LEFT_MS = 2_000n;

interface Cached {
  readonly stored: StoredCommit;
  readonly putAtMs: bigint;
}

/**
 * The commits this store itself just wrote (its completed reserves and the state moves it made), so
 * the next step of the same commit may skip its read. Only a hint for a conditional write: a step
 * uses it only when the shared decision on it is `write`; the write's `IF state = ? AND claim = ?`
 * still guards the state and the commit's incarnation (a key that expired and was reserved anew has
 * another claim token), and the intent it writes is immutable until OUTBOXED (an OUTBOXED commit
 * fails the condition). Anything else — a refusal, an answer, a lost condition — is decided again
 * on a fresh read.
 */
export class CommitCache {
  private readonly entries = new Map<string, Cached>();

  get(key: CommitKey, nowMs: bigint, auxTtlMs: bigint): StoredCommit | null {
    const id = commitKeyString(key);
    const hit = this.entries.get(id);
    if (hit === undefined) return null;
    const deadline = hit.stored.bornMicros / 1000n + auxTtlMs;
    if (hit.stored.bornMicros < 0n || nowMs - hit.putAtMs > MAX_AGE_MS || deadline - nowMs < MIN_LEFT_MS) {
      this.entries.delete(id);
      return null;
    }
    return hit.stored;
  }

  put(stored: StoredCommit, nowMs: bigint): void {
    const id = commitKeyString(stored.snapshot.intent.key);
    this.entries.delete(id);
    this.entries.set(id, { stored, putAtMs: nowMs });
    if (this.entries.size > CAPACITY) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }

  forget(key: CommitKey): void {
    this.entries.delete(commitKeyString(key));
  }
}
