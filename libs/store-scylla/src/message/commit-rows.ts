import type { types } from 'cassandra-driver';
import { COMMIT_STATES, CorruptEntryError, commitKeyEquals, decodeCommitIntent, id128ToBytes } from '@qim/store-core';
import type { CommitKey, CommitSnapshot, CommitState } from '@qim/store-core';
import { fromCqlBigint } from '../session/statements';
import type { MessageContext } from './message-context';
import { ttlSecondsOf } from './message-context';

/** A commit as stored: the decoded snapshot, its stored intent bytes and when its row was born. */
export interface StoredCommit {
  readonly snapshot: CommitSnapshot;
  readonly intentBytes: Buffer;
  /** Write time (µs) of the `identity` cell, written once by the reserving INSERT: the row's birth. */
  readonly bornMicros: bigint;
}

/** The partition key values of a commit key, in statement order. */
export function commitKeyParams(key: CommitKey): Buffer[] {
  return [id128ToBytes(key.tenantId), id128ToBytes(key.senderId), id128ToBytes(key.clientMessageId)];
}

/**
 * Decodes a `message_commit` row (from a SELECT or from a not-applied LWT, which returns the
 * existing row). A row whose identity, intent or state cell is gone has expired: its cells carry
 * the same TTL deadline, and no write ever creates such a row (the only creating write is the
 * complete INSERT), so it is reported as absent. An undecodable blob or an intent that disagrees
 * with its key, identity column or state → `CorruptEntryError`.
 */
export function decodeCommitRow(row: types.Row | undefined, key: CommitKey): StoredCommit | null {
  if (row === undefined) return null;
  const identity: unknown = row['identity'];
  const intentBytes: unknown = row['intent'];
  const state: unknown = row['state'];
  if (!Buffer.isBuffer(identity) || !Buffer.isBuffer(intentBytes) || typeof state !== 'string') return null;
  const label = `commit ${key.tenantId}:${key.senderId}:${key.clientMessageId}`;
  if (!COMMIT_STATES.includes(state as CommitState)) throw new CorruptEntryError(`${label}: unknown state ${JSON.stringify(state)}`);
  let intent;
  try {
    intent = decodeCommitIntent(intentBytes);
  } catch (err) {
    throw new CorruptEntryError(`${label}: undecodable intent: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  if (!commitKeyEquals(intent.key, key) || !identity.equals(Buffer.from(intent.identity))) {
    throw new CorruptEntryError(`${label}: intent does not match its key or identity column`);
  }
  const born: unknown = row['born_us'];
  const bornMicros = born === undefined || born === null ? -1n : fromCqlBigint(born, 'writetime');
  return { snapshot: { intent, state: state as CommitState }, intentBytes, bornMicros };
}

/** Reads and decodes the commit of `key`; null when absent or expired. */
export async function loadStoredCommit(ctx: MessageContext, key: CommitKey): Promise<StoredCommit | null> {
  const rs = await ctx.commit.select.run(commitKeyParams(key));
  return decodeCommitRow(rs.rows[0], key);
}

/**
 * TTL (s) for a state move: what is left of the row's fixed deadline (birth + aux TTL), never
 * renewed. Whole seconds rounded up and at least 1, so the rewritten cells never expire before the
 * row marker written by the INSERT.
 */
export function remainingAuxTtlSeconds(ctx: MessageContext, stored: StoredCommit): number {
  if (stored.bornMicros < 0n) return ttlSecondsOf(ctx.auxTtlMs);
  const deadlineMs = stored.bornMicros / 1000n + ctx.auxTtlMs;
  return ttlSecondsOf(deadlineMs - ctx.clock.nowMs());
}
