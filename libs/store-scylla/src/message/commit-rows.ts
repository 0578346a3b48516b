import type { types } from 'cassandra-driver';
import { COMMIT_STATES, CorruptEntryError, commitKeyEquals, decodeCommitIntent, id128ToBytes } from '@qim/store-core';
import type { CommitKey, CommitState } from '@qim/store-core';
import { fromCqlBigint } from '../session/statements';
import type { StoredCommit } from './commit-cache';
import type { MessageContext } from './message-context';
import { ttlSecondsOf } from './message-context';

/** The row state of a claim (a key taken before its seq is allocated); never a `CommitState`. */
export const CLAIMED = 'CLAIMED';

export type { StoredCommit };

/** A claim: the key is taken by a reserve that has not completed it (yet). */
export interface StoredClaim {
  readonly kind: 'claim';
  readonly identity: Buffer;
  /** The claimant's random token; empty = abandoned by its claimant. */
  readonly token: Buffer;
  readonly bornMicros: bigint;
  /** Write time (µs) of the token: when the current claimant took the key; -1 when not read. */
  readonly claimMicros: bigint;
}

export type StoredRow = StoredCommit | StoredClaim;

/** The partition key values of a commit key, in statement order. */
export function commitKeyParams(key: CommitKey): Buffer[] {
  return [id128ToBytes(key.tenantId), id128ToBytes(key.senderId), id128ToBytes(key.clientMessageId)];
}

function micros(v: unknown, what: string): bigint {
  return v === undefined || v === null ? -1n : fromCqlBigint(v, what);
}

/**
 * The state a commit row stands for. RECORDED has two stored forms: the `state` cell RECORDED
 * (written by an LWT move, as before the record mark existed, and still read) or the `state` cell
 * RESERVED plus a `recorded` cell equal to the row's claim token (putRecord's plain record mark,
 * `COMMIT_CQL.record`). A mark naming another token is a late write of an earlier incarnation of the
 * key and does not count.
 */
function stateOf(stateCell: CommitState, token: Buffer | null, recorded: unknown): CommitState {
  const marked = stateCell === 'RESERVED' && token !== null && token.length > 0 && Buffer.isBuffer(recorded) && recorded.equals(token);
  return marked ? 'RECORDED' : stateCell;
}

function label(key: CommitKey): string {
  return `commit ${key.tenantId}:${key.senderId}:${key.clientMessageId}`;
}

function decodeClaim(row: types.Row, key: CommitKey, identity: Buffer): StoredClaim | null {
  const token: unknown = row['claim'];
  if (!Buffer.isBuffer(token)) return null;
  if (Buffer.isBuffer(row['intent'])) throw new CorruptEntryError(`${label(key)}: a claim that carries an intent`);
  if (token.length !== 0 && token.length !== 16) throw new CorruptEntryError(`${label(key)}: claim token of ${token.length} bytes`);
  return { kind: 'claim', identity, token, bornMicros: micros(row['born_us'], 'writetime'), claimMicros: micros(row['claim_us'], 'writetime') };
}

/**
 * Decodes a `message_commit` row (from a SELECT or from a not-applied LWT, which returns the
 * existing row). A row whose identity or state cell is gone — or a commit without its intent, a
 * claim without its token — has expired: no write ever creates such a row (the only creating write
 * is the complete claim INSERT; the completion sets intent and state together; a record mark landing
 * after its row expired leaves a lone `recorded` cell), so it is reported as absent. An undecodable
 * blob, an unknown state, a claim carrying an intent, or an intent that disagrees with its key or
 * identity column → `CorruptEntryError`.
 */
export function decodeCommitRow(row: types.Row | undefined, key: CommitKey): StoredRow | null {
  if (row === undefined) return null;
  const identity: unknown = row['identity'];
  const state: unknown = row['state'];
  if (!Buffer.isBuffer(identity) || typeof state !== 'string') return null;
  if (state === CLAIMED) return decodeClaim(row, key, identity);
  if (!COMMIT_STATES.includes(state as CommitState)) throw new CorruptEntryError(`${label(key)}: unknown state ${JSON.stringify(state)}`);
  const intentBytes: unknown = row['intent'];
  if (!Buffer.isBuffer(intentBytes)) return null;
  let intent;
  try {
    intent = decodeCommitIntent(intentBytes);
  } catch (err) {
    throw new CorruptEntryError(`${label(key)}: undecodable intent: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  if (!commitKeyEquals(intent.key, key) || !identity.equals(Buffer.from(intent.identity))) {
    throw new CorruptEntryError(`${label(key)}: intent does not match its key or identity column`);
  }
  const at: unknown = row['recovery_at'];
  const claim: unknown = row['claim'];
  const token = Buffer.isBuffer(claim) ? claim : null;
  const stateCell = state as CommitState;
  return {
    kind: 'commit',
    snapshot: { intent, state: stateOf(stateCell, token, row['recorded']) },
    stateCell,
    intentBytes,
    bornMicros: micros(row['born_us'], 'writetime'),
    recoveryAt: at === undefined || at === null ? null : fromCqlBigint(at, 'message_commit.recovery_at'),
    token,
  };
}

/** Reads and decodes the row of `key` (commit or claim); null when absent or expired. */
export async function loadCommitRow(ctx: MessageContext, key: CommitKey): Promise<StoredRow | null> {
  const rs = await ctx.cql.run(ctx.commit.select, commitKeyParams(key));
  return decodeCommitRow(rs.rows[0], key);
}

/** Reads the commit of `key`; null when absent, expired or only claimed (a claim is not a commit yet). */
export async function loadStoredCommit(ctx: MessageContext, key: CommitKey): Promise<StoredCommit | null> {
  const row = await loadCommitRow(ctx, key);
  return row?.kind === 'commit' ? row : null;
}

/** The fixed deadline (ms) of a row born at `bornMicros`; null when the birth was not read. */
export function auxDeadlineMs(ctx: MessageContext, bornMicros: bigint): bigint | null {
  return bornMicros < 0n ? null : bornMicros / 1000n + ctx.auxTtlMs;
}

/**
 * TTL (s) for a rewrite of a row born at `bornMicros`: what is left of its fixed deadline (birth +
 * aux TTL), never renewed. Whole seconds rounded up and at least 1, so the rewritten cells never
 * expire before the row marker written by the claim.
 */
export function remainingAuxTtlSeconds(ctx: MessageContext, stored: { readonly bornMicros: bigint }): number {
  const deadline = auxDeadlineMs(ctx, stored.bornMicros);
  return ttlSecondsOf(deadline === null ? ctx.auxTtlMs : deadline - ctx.clock.nowMs());
}
