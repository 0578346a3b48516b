import {
  ConflictError,
  InvalidStateError,
  NotFoundError,
  encodeCommitIntent,
  encodeMessageRecord,
  hasReached,
  id128ToBytes,
  intentsEqual,
  recordFromIntent,
  recordTtlSeconds,
  recordsEqual,
} from '@qim/store-core';
import type { CommitIntent, CommitKey, CommitSnapshot, CommitState, Id128, MessageRecord, Publication } from '@qim/store-core';
import { applied, toCqlBigint } from '../session/statements';
import { commitKeyParams, loadStoredCommit, remainingAuxTtlSeconds } from './commit-rows';
import type { StoredCommit } from './commit-rows';
import type { MessageContext } from './message-context';
import { seqBucketOf } from './tables/record-table';

async function mustLoad(ctx: MessageContext, key: CommitKey): Promise<StoredCommit> {
  const stored = await loadStoredCommit(ctx, key);
  if (stored === null) throw new NotFoundError(`no commit for ${key.tenantId}:${key.senderId}:${key.clientMessageId}`);
  return stored;
}

/**
 * After a state-move CAS was not applied: reload; a commit that already reached `target` answers
 * with its current snapshot (a concurrent retry won), anything else is `InvalidStateError`.
 */
async function afterLostMove(ctx: MessageContext, key: CommitKey, target: CommitState): Promise<CommitSnapshot> {
  const now = await mustLoad(ctx, key);
  if (hasReached(now.snapshot.state, target)) return now.snapshot;
  throw new InvalidStateError(`commit is ${now.snapshot.state}; cannot move to ${target}`);
}

/**
 * `putRecord`: only for the stored intent (publication ignored) and exactly `recordFromIntent` of
 * it. Writes the canonical record, then its history index row, both with the same per-row TTL
 * (Ephemeral only; `USING TTL 0` = none) as same-value upserts, then moves RESERVED → RECORDED with
 * `IF state = 'RESERVED'`. RECORDED or later → current snapshot, nothing written.
 */
export async function putRecord(ctx: MessageContext, intent: CommitIntent, record: MessageRecord): Promise<CommitSnapshot> {
  const stored = await mustLoad(ctx, intent.key);
  const mine = stored.snapshot.intent;
  if (!intentsEqual(mine, intent, true)) throw new ConflictError('putRecord with an intent that is not the stored one');
  if (!recordsEqual(recordFromIntent(mine), record)) throw new ConflictError('putRecord with a record that is not recordFromIntent(intent)');
  if (stored.snapshot.state !== 'RESERVED') return stored.snapshot;

  const bytes = encodeMessageRecord(record);
  const ttl = recordTtlSeconds(record.retention) ?? 0;
  const seq = toCqlBigint(record.seq, 'seq');
  const conv = [id128ToBytes(record.tenantId), id128ToBytes(record.conversationId)];
  await ctx.record.upsert.run([...conv, toCqlBigint(seqBucketOf(seq), 'seq_bucket'), seq, bytes, ttl]);
  await ctx.faults.at('put-record:after-record');
  await ctx.index.upsert.run([...conv, seq, id128ToBytes(record.messageId), bytes.length, ttl]);
  await ctx.faults.at('put-record:after-index');

  const rs = await ctx.commit.advance.run([remainingAuxTtlSeconds(ctx, stored), stored.intentBytes, 'RECORDED', ...commitKeyParams(mine.key), 'RESERVED']);
  if (applied(rs)) return { intent: mine, state: 'RECORDED' };
  return afterLostMove(ctx, mine.key, 'RECORDED');
}

/** `markOutboxPublished`: same message id only; RECORDED → OUTBOXED storing the publication in the intent. */
export async function markOutboxPublished(ctx: MessageContext, key: CommitKey, messageId: Id128, publication: Publication): Promise<CommitSnapshot> {
  const stored = await mustLoad(ctx, key);
  const { intent, state } = stored.snapshot;
  if (intent.messageId !== messageId) throw new ConflictError('markOutboxPublished for another message id');
  if (hasReached(state, 'OUTBOXED')) return stored.snapshot;
  if (state !== 'RECORDED') throw new InvalidStateError(`commit is ${state}; cannot move to OUTBOXED`);
  const published: CommitIntent = { ...intent, publication: { topic: publication.topic, partition: publication.partition, offset: publication.offset } };
  const blob = encodeCommitIntent(published);
  const rs = await ctx.commit.advance.run([remainingAuxTtlSeconds(ctx, stored), blob, 'OUTBOXED', ...commitKeyParams(key), 'RECORDED']);
  if (applied(rs)) return { intent: published, state: 'OUTBOXED' };
  return afterLostMove(ctx, key, 'OUTBOXED');
}

/** `markCommitted`: only from OUTBOXED; keeps the intent (and its coordinates) and sets committed_at. */
export async function markCommitted(ctx: MessageContext, key: CommitKey): Promise<CommitSnapshot> {
  const stored = await mustLoad(ctx, key);
  const { intent, state } = stored.snapshot;
  if (state === 'COMMITTED') return stored.snapshot;
  if (state !== 'OUTBOXED') throw new InvalidStateError(`commit is ${state}; cannot move to COMMITTED`);
  const now = toCqlBigint(ctx.clock.nowMs(), 'committed_at');
  const rs = await ctx.commit.commit.run([remainingAuxTtlSeconds(ctx, stored), stored.intentBytes, 'COMMITTED', now, ...commitKeyParams(key), 'OUTBOXED']);
  if (applied(rs)) return { intent, state: 'COMMITTED' };
  return afterLostMove(ctx, key, 'COMMITTED');
}
