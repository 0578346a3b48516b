import { COMMIT_STATES, CorruptEntryError, decodeCommitIntent, decodeMessageRecord } from '@qim/store-core';
import type { CommitIntent, CommitSnapshot, CommitState, MessageRecord } from '@qim/store-core';
import { u64FromHex16 } from '../redis/hex64';

/** Decodes stored CommitIntent bytes; any codec refusal is stored damage → `CorruptEntryError`. */
export function decodeStoredIntent(bytes: Uint8Array): CommitIntent {
  try {
    return decodeCommitIntent(bytes);
  } catch (e) {
    throw new CorruptEntryError('stored commit intent is undecodable', { cause: e });
  }
}

/** Decodes stored MessageRecord bytes; any codec refusal → `CorruptEntryError`. */
export function decodeStoredRecord(bytes: Uint8Array): MessageRecord {
  try {
    return decodeMessageRecord(bytes);
  } catch (e) {
    throw new CorruptEntryError('stored message record is undecodable', { cause: e });
  }
}

export function parseState(raw: Buffer | string): CommitState {
  const s = typeof raw === 'string' ? raw : raw.toString('latin1');
  const state = COMMIT_STATES.find((x) => x === s);
  if (state === undefined) throw new CorruptEntryError(`stored commit state is unknown: ${JSON.stringify(s)}`);
  return state;
}

export function snapshotOf(state: Buffer | string, intent: Buffer): CommitSnapshot {
  return { intent: decodeStoredIntent(intent), state: parseState(state) };
}

/** The fields `HMGET <commit> identity state intent expires message` returns. */
export const COMMIT_FIELDS = ['identity', 'state', 'intent', 'expires', 'message'] as const;

/** A commit hash as read, or null when absent or aux-expired at `now` (logical expiry, caller clock). */
export interface StoredCommit {
  readonly identity: Buffer;
  readonly state: CommitState;
  /** The raw stored intent bytes (the CAS guard of later moves). */
  readonly intentBytes: Buffer;
  readonly intent: CommitIntent;
}

export function parseStoredCommit(reply: unknown, now: bigint): StoredCommit | null {
  const [identity, state, intent, expires] = reply as (Buffer | null)[];
  if (!identity && !state && !intent && !expires) return null;
  if (!identity || !state || !intent || !expires) throw new CorruptEntryError('commit hash is missing fields');
  if (u64FromHex16(expires, 'aux expiry') <= now) return null;
  return { identity, state: parseState(state), intentBytes: intent, intent: decodeStoredIntent(intent) };
}
