import {
  COMMIT_STEP_TEXTS,
  InvariantViolationError,
  commitConflict,
  decideMarkCommitted,
  decideMarkOutboxPublished,
  decideMarkPublishedAndCommitted,
  decidePutRecord,
  encodeCommitIntent,
  encodeMessageRecord,
  id128ToBytes,
  remainingRecordTtlSeconds,
} from '@qim/store-core';
import type { CommitIntent, CommitKey, CommitSnapshot, CommitState, Id128, MessageRecord, Publication, StepDecision } from '@qim/store-core';
import { applied, toCqlBigint } from '../session/statements';
import { commitKeyParams, loadStoredCommit, remainingAuxTtlSeconds } from './commit-rows';
import type { StoredCommit } from './commit-rows';
import type { MessageContext } from './message-context';
import { markRecoveryEntryDone } from './recovery-entry';
import { seqBucketOf } from './tables/record-table';

/**
 * Rounds of "read, decide (store-core `decide*`), conditional write" one step may take. States only
 * move forward, so a lost write is followed by an `answer` (or a refusal) within a few rounds.
 */
const MAX_ROUNDS = 4;

/**
 * Runs one lifecycle step: take the commit (this store's cached copy on the first round, when the
 * decision on it is `write`; else a fresh read), let the shared store-core decision say refuse /
 * answer / write, and perform `write` (a conditional state move returning the new snapshot, or null
 * when its condition failed — then read and decide again).
 */
async function step(
  ctx: MessageContext,
  key: CommitKey,
  decide: (stored: CommitSnapshot | null) => StepDecision,
  write: (stored: StoredCommit) => Promise<CommitSnapshot | null>,
): Promise<CommitSnapshot> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const cached = round === 0 ? ctx.cache.get(key, ctx.clock.nowMs(), ctx.auxTtlMs) : null;
    const stored = cached !== null && decidesWrite(decide, cached) ? cached : await loadStoredCommit(ctx, key);
    const decision = decide(stored?.snapshot ?? null);
    if (decision.action === 'answer') return decision.snapshot;
    if (stored === null) throw new InvariantViolationError('a step decided to write a commit that does not exist');
    const moved = await write(stored);
    if (moved !== null) return moved;
    ctx.cache.forget(key);
  }
  throw new InvariantViolationError(`commit ${key.tenantId}:${key.senderId}:${key.clientMessageId} kept changing under its state move`);
}

/** True when the decision on a cached commit is `write` (a refusal or an answer is only ever given on a fresh read). */
function decidesWrite(decide: (stored: CommitSnapshot | null) => StepDecision, cached: StoredCommit): boolean {
  try {
    return decide(cached.snapshot).action === 'write';
  } catch {
    return false;
  }
}

/**
 * `UPDATE … SET intent, state IF state = <the stored state cell> AND claim = <its token>` with what
 * is left of the row's deadline; the cache follows. The condition names the state cell as read (or
 * as this store wrote it), which for a commit recorded by its mark is RESERVED: the mark only ever
 * appears, so the decision taken on it stays true while the state cell and the token are unchanged.
 */
async function move(ctx: MessageContext, stored: StoredCommit, intent: CommitIntent, to: CommitState): Promise<CommitSnapshot | null> {
  const intentBytes = intent === stored.snapshot.intent ? stored.intentBytes : encodeCommitIntent(intent);
  const rs = await ctx.cql.run(ctx.commit.advance, [
    remainingAuxTtlSeconds(ctx, stored),
    intentBytes,
    to,
    ...commitKeyParams(intent.key),
    stored.stateCell,
    stored.token,
  ]);
  if (!applied(rs)) return null;
  const snapshot = { intent, state: to };
  ctx.cache.put({ ...stored, snapshot, stateCell: to, intentBytes }, ctx.clock.nowMs());
  return snapshot;
}

/**
 * `… SET state = 'COMMITTED', committed_at IF state = <the stored state cell> AND claim = <its token>`,
 * then the recovery entry is marked done (not awaited).
 */
async function moveToCommitted(ctx: MessageContext, stored: StoredCommit, intent: CommitIntent): Promise<CommitSnapshot | null> {
  const ttl = remainingAuxTtlSeconds(ctx, stored);
  const now = toCqlBigint(ctx.clock.nowMs(), 'committed_at');
  const intentBytes = intent === stored.snapshot.intent ? stored.intentBytes : encodeCommitIntent(intent);
  const rs = await ctx.cql.run(ctx.commit.commit, [ttl, intentBytes, 'COMMITTED', now, ...commitKeyParams(intent.key), stored.stateCell, stored.token]);
  if (!applied(rs)) return null;
  ctx.cache.forget(intent.key);
  await ctx.faults.at('mark-committed:after-state');
  // Not on the ACK path: a lost mark only costs a later scan one commit read (it finds COMMITTED).
  if (stored.recoveryAt !== null) void markRecoveryEntryDone(ctx, intent.key, stored.recoveryAt, intent.createdAt, ttl).catch(() => undefined);
  return { intent, state: 'COMMITTED' };
}

/**
 * Another message's record at the seq (a seq handed out twice: a lost or restored
 * `conversation_sequence` row) → `ConflictError` before anything is written. One LOCAL_QUORUM point
 * read per record write: here, or — for a commit this store just completed — by its reserve,
 * together with the completion (`seqIsFree`; used while `SEQ_FREE_FRESH_MS` old). Not closed: two
 * commits holding the same seq that both pass this check before either has written (it needs the
 * damaged counter and two writes within one completion LWT, or the read here); closing that too
 * would take an LWT on every record write.
 */
async function assertSeqFree(ctx: MessageContext, conv: Buffer[], bucket: bigint, seq: bigint, bytes: Buffer): Promise<void> {
  const rs = await ctx.cql.run(ctx.record.selectMany, [...conv, bucket, [seq]]);
  const existing: unknown = rs.rows[0]?.['record'];
  if (Buffer.isBuffer(existing) && !existing.equals(bytes)) throw commitConflict('putRecord', COMMIT_STEP_TEXTS.seqTaken);
}

/**
 * Longest a reserve's seq-free check stands in for `putRecord`'s own (ms from the read's sending to
 * the record write): bounds how long the check's answer is trusted. Older → `putRecord` reads again.
 */
export const SEQ_FREE_FRESH_MS = 1_000n;

/**
 * The seq-free check of a commit being completed: true when no record is at `seq` (nothing to
 * conflict with: `putRecord` may skip its own read), false when one is or the read failed (then
 * `putRecord` reads and decides itself). Never throws.
 */
export async function seqIsFree(ctx: MessageContext, tenantId: Id128, conversationId: Id128, seq: bigint): Promise<boolean> {
  try {
    const cqlSeq = toCqlBigint(seq, 'seq');
    const rs = await ctx.cql.run(ctx.record.selectMany, [
      id128ToBytes(tenantId),
      id128ToBytes(conversationId),
      toCqlBigint(seqBucketOf(cqlSeq), 'seq_bucket'),
      [cqlSeq],
    ]);
    return rs.rows.length === 0;
  } catch {
    return false;
  }
}

/** True when this store's reserve found the commit's seq free recently enough to stand for `assertSeqFree`. */
function seqCheckedFree(ctx: MessageContext, stored: StoredCommit): boolean {
  return stored.seqFreeAtMs !== undefined && ctx.clock.nowMs() - stored.seqFreeAtMs <= SEQ_FREE_FRESH_MS;
}

/**
 * `putRecord`: decided by `decidePutRecord`; the write refuses a seq that holds another message's
 * record (`assertSeqFree`, unless this store's reserve just found the seq free), stores the canonical record, then its history index row, both with the
 * same per-row TTL as same-value upserts — Ephemeral only: what is left of `createdAt + ttl` in whole
 * seconds rounded down (`remainingRecordTtlSeconds`; nothing is written when under a second is
 * left), other classes `USING TTL 0` = none — then records the commit with the record mark
 * (`recordMark`), a plain write: no LWT.
 */
export function putRecord(ctx: MessageContext, intent: CommitIntent, record: MessageRecord): Promise<CommitSnapshot> {
  return step(
    ctx,
    intent.key,
    (stored) => decidePutRecord(stored, intent, record),
    async (stored) => {
      const bytes = encodeMessageRecord(record);
      const seq = toCqlBigint(record.seq, 'seq');
      const conv = [id128ToBytes(record.tenantId), id128ToBytes(record.conversationId)];
      const bucket = toCqlBigint(seqBucketOf(seq), 'seq_bucket');
      if (!seqCheckedFree(ctx, stored)) await assertSeqFree(ctx, conv, bucket, seq, bytes);
      const ttl = remainingRecordTtlSeconds(record, ctx.clock.nowMs());
      // an Ephemeral message with less than a second of life left is not written (TTL 0 = forever)
      if (ttl !== 0) {
        await ctx.cql.run(ctx.record.upsert, [...conv, bucket, seq, bytes, ttl ?? 0]);
        await ctx.faults.at('put-record:after-record');
        await ctx.cql.run(ctx.index.upsert, [...conv, seq, id128ToBytes(record.messageId), bytes.length, ttl ?? 0]);
        await ctx.faults.at('put-record:after-index');
      }
      return recordMark(ctx, stored);
    },
  );
}

/**
 * RESERVED → RECORDED as `recorded = <claim token>` `USING TIMESTAMP <birth>` (why a plain write is
 * enough: `COMMIT_CQL.record`). Only after the record and its index row are durable, so RECORDED still
 * means "the record is written"; a crash before it leaves RESERVED, and the step is redone (same-value
 * writes). Never null: the write has no condition. A commit another writer moved on meanwhile
 * (recovery finishing it concurrently) keeps its state cell, and this step answers RECORDED where
 * the LWT move would have re-read and answered the later state; the committer then publishes once
 * more (publication is at-least-once) and its COMMITTED move re-reads and answers COMMITTED.
 */
async function recordMark(ctx: MessageContext, stored: StoredCommit): Promise<CommitSnapshot> {
  if (stored.token === null || stored.token.length === 0 || stored.bornMicros < 0n) {
    throw new InvariantViolationError('a RESERVED commit without its claim token or birth cannot be recorded');
  }
  const params = [remainingAuxTtlSeconds(ctx, stored), toCqlBigint(stored.bornMicros, 'birth'), stored.token, ...commitKeyParams(stored.snapshot.intent.key)];
  await ctx.cql.run(ctx.commit.record, params);
  const snapshot = { intent: stored.snapshot.intent, state: 'RECORDED' } as const;
  ctx.cache.put({ ...stored, snapshot }, ctx.clock.nowMs());
  return snapshot;
}

/** `markOutboxPublished`: decided by `decideMarkOutboxPublished`; RECORDED → OUTBOXED storing the publication in the intent. */
export function markOutboxPublished(ctx: MessageContext, key: CommitKey, messageId: Id128, publication: Publication): Promise<CommitSnapshot> {
  return step(
    ctx,
    key,
    (stored) => decideMarkOutboxPublished(stored, messageId),
    (stored) => move(ctx, stored, withPublication(stored.snapshot.intent, publication), 'OUTBOXED'),
  );
}

/** `markCommitted`: decided by `decideMarkCommitted`; OUTBOXED → COMMITTED keeping the intent (and its coordinates). */
export function markCommitted(ctx: MessageContext, key: CommitKey): Promise<CommitSnapshot> {
  return step(ctx, key, decideMarkCommitted, (stored) => moveToCommitted(ctx, stored, stored.snapshot.intent));
}

/**
 * `markPublishedAndCommitted`: decided by `decideMarkPublishedAndCommitted`; one conditional write
 * to COMMITTED — from RECORDED storing `publication` in the intent, from OUTBOXED keeping the first
 * publication.
 */
export function markPublishedAndCommitted(ctx: MessageContext, intent: CommitIntent, publication: Publication): Promise<CommitSnapshot> {
  return step(
    ctx,
    intent.key,
    (stored) => decideMarkPublishedAndCommitted(stored, intent),
    (stored) => {
      const { state, intent: mine } = stored.snapshot;
      return moveToCommitted(ctx, stored, state === 'RECORDED' ? withPublication(mine, publication) : mine);
    },
  );
}

function withPublication(intent: CommitIntent, p: Publication): CommitIntent {
  return { ...intent, publication: { topic: p.topic, partition: p.partition, offset: p.offset } };
}
