import {
  COMMIT_STATES,
  CorruptEntryError,
  bytesEqual,
  decodeCommitIntent,
  decodeMessageRecord,
  decodeSendRequest,
  identityOfEncodedRequest,
} from '@qim/store-core';
import type { CommitIntent, CommitSnapshot, CommitState, Id128, MessageRecord, SendRequest } from '@qim/store-core';
import { u64FromHex16 } from '../redis/hex64';
import { unpackIds } from './seq-claim-value';

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

/** The state of a commit hash that holds its complete intent (RECORDED or later). */
export function parseState(raw: Buffer | string): CommitState {
  const s = typeof raw === 'string' ? raw : raw.toString('latin1');
  const state = COMMIT_STATES.find((x) => x === s);
  if (state === undefined) throw new CorruptEntryError(`stored commit state is unknown: ${JSON.stringify(s)}`);
  return state;
}

/** A snapshot from a stored state and intent (a commit that holds its complete intent). */
export function snapshotOf(state: Buffer | string, intent: Buffer | null): CommitSnapshot {
  if (intent === null) throw new CorruptEntryError(`commit in state ${String(state)} has no intent`);
  return { intent: decodeStoredIntent(intent), state: parseState(state) };
}

/** The state of a commit that has claimed its key but not yet stored its complete intent. */
export const CLAIMED = 'CLAIMED';

/** The fields `HMGET <commit> …` reads, in this order. */
export const COMMIT_FIELDS = ['identity', 'state', 'intent', 'expires', 'request', 'recipients'] as const;

/**
 * A commit hash as read: with its complete intent (RECORDED or later), or CLAIMED (the request and
 * recipients; seq and candidates are in the conversation's seq claim). Null when absent or
 * aux-expired at `now` (logical expiry, caller clock).
 */
export type StoredCommit =
  | { readonly kind: 'intent'; readonly state: CommitState; readonly intentBytes: Buffer; readonly intent: CommitIntent }
  | { readonly kind: 'claimed'; readonly identity: Buffer; readonly request: SendRequest; readonly recipients: readonly Id128[] };

export function parseStoredCommit(reply: unknown, now: bigint): StoredCommit | null {
  const [identity, state, intent, expires, request, recipients] = reply as (Buffer | null)[];
  if (!identity && !state && !intent && !expires) return null;
  if (!identity || !state || !expires) throw new CorruptEntryError('commit hash is missing fields');
  if (u64FromHex16(expires, 'aux expiry') <= now) return null;
  if (state.toString('latin1') !== CLAIMED) {
    const snapshot = snapshotOf(state, intent ?? null);
    if (!bytesEqual(snapshot.intent.identity, identity)) throw new CorruptEntryError('commit identity and intent disagree');
    return { kind: 'intent', state: snapshot.state, intentBytes: intent!, intent: snapshot.intent };
  }
  if (!request || !recipients) throw new CorruptEntryError('claimed commit is missing its request');
  if (!bytesEqual(identityOfEncodedRequest(request), identity)) throw new CorruptEntryError('claimed commit identity and request disagree');
  let decoded: SendRequest;
  try {
    decoded = decodeSendRequest(request);
  } catch (e) {
    throw new CorruptEntryError('claimed commit request is undecodable', { cause: e });
  }
  return { kind: 'claimed', identity, request: decoded, recipients: unpackIds(recipients) };
}
