import { ConflictError, UnavailableError, encodeCommitIntent, requestIdentity, validateReserveInput } from '@qim/store-core';
import type { CommitIntent, ReserveInput, ReserveResult } from '@qim/store-core';
import { applied, toCqlBigint } from '../session/statements';
import { commitKeyParams, decodeCommitRow, loadStoredCommit } from './commit-rows';
import type { StoredCommit } from './commit-rows';
import type { MessageContext } from './message-context';
import { ttlSecondsOf } from './message-context';
import type { SequenceAllocator } from './sequence-allocator';
import { recoveryBucketOf } from './tables/recovery-table';

function replayOrConflict(stored: StoredCommit, identity: Buffer): ReserveResult {
  if (!identity.equals(Buffer.from(stored.snapshot.intent.identity))) {
    throw new ConflictError('a commit with this key exists for a different request');
  }
  return { snapshot: stored.snapshot, created: false };
}

/**
 * `reserve` on Scylla. An existing commit answers by identity (same bytes → first intent and its
 * state; else `ConflictError`). First time, in this order:
 * 1. the recovery index row (TTL'd, hourly bucket of created_at), so a crash after any later step
 *    leaves an entry the scanner finds — or, before the commit exists, an orphan it skips;
 * 2. the seq, by single-step CAS (`SequenceAllocator`);
 * 3. the complete RESERVED commit by `INSERT … IF NOT EXISTS` (LOCAL_SERIAL). Losing this race to
 *    another reserve of the same key leaves our seq as a hole and answers with the winner's intent.
 */
export async function reserve(ctx: MessageContext, seqs: SequenceAllocator, raw: ReserveInput): Promise<ReserveResult> {
  const input = validateReserveInput(raw);
  const request = input.request;
  const identity = requestIdentity(request);
  const key = { tenantId: request.tenantId, senderId: request.senderId, clientMessageId: request.clientMessageId };
  const createdAt = toCqlBigint(input.createdAt, 'createdAt');
  const keyParams = commitKeyParams(key);
  const auxTtl = ttlSecondsOf(ctx.auxTtlMs);

  const existing = await loadStoredCommit(ctx, key);
  if (existing !== null) return replayOrConflict(existing, identity);

  await ctx.recovery.insert.run([toCqlBigint(recoveryBucketOf(createdAt), 'hour_bucket'), createdAt, ...keyParams, auxTtl]);
  await ctx.faults.at('reserve:after-recovery-row');

  const seq = await seqs.next(request.tenantId, request.conversationId);
  await ctx.faults.at('reserve:after-seq');

  const intent: CommitIntent = {
    key,
    identity,
    request,
    seq,
    messageId: input.messageId,
    createdAt,
    recipients: input.recipients,
    publication: null,
  };
  const rs = await ctx.commit.insertReserved.run([...keyParams, identity, encodeCommitIntent(intent), createdAt, auxTtl]);
  if (applied(rs)) {
    await ctx.faults.at('reserve:after-commit');
    return { snapshot: { intent, state: 'RESERVED' }, created: true };
  }
  const winner = decodeCommitRow(rs.rows[0], key) ?? (await loadStoredCommit(ctx, key));
  if (winner === null) throw new UnavailableError('the commit key was taken and expired during reserve; retry');
  return replayOrConflict(winner, identity);
}

