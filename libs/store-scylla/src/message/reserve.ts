import { StoreError, UnavailableError, assertSameRequest, encodeCommitIntent, requestIdentity } from '@qim/store-core';
import type { CommitIntent, CommitKey, ReserveResult, ValidReserveInput } from '@qim/store-core';
import { applied, toCqlBigint } from '../session/statements';
import { claimCommitKey, newClaimAttempt } from './claim';
import type { ClaimOutcome, ClaimReleases } from './claim';
import { commitKeyParams } from './commit-rows';
import type { StoredCommit } from './commit-rows';
import type { MessageContext } from './message-context';
import { ttlSecondsOf } from './message-context';
import { writeRecoveryEntry } from './recovery-entry';
import type { SequenceAllocator } from './sequence-allocator';
import { seqIsFree } from './transitions';

/** Claims lost to a takeover before a reserve gives up (each such loss leaves one hole). */
const MAX_CLAIM_LOSSES = 2;

function replayOrConflict(stored: StoredCommit, identity: Buffer): ReserveResult {
  assertSameRequest('reserve', stored.snapshot.intent.identity, identity);
  return { snapshot: stored.snapshot, created: false };
}

/**
 * With the key claimed by `token`: the recovery index entry and the seq (together), then the completion
 * `IF state = 'CLAIMED' AND claim = token` together with `putRecord`'s seq-free check (a read of the
 * record at the new seq, remembered with the commit so the record write that follows needs no read of
 * its own). Null when the claim was taken over meanwhile (we were slower than the lease): the seq we
 * got is then a hole, as after a crash.
 */
async function completeClaim(
  ctx: MessageContext,
  seqs: SequenceAllocator,
  input: ValidReserveInput,
  key: CommitKey,
  identity: Buffer,
  token: Buffer,
  deadlineMs: bigint,
): Promise<ReserveResult | null> {
  const { request } = input;
  const createdAt = toCqlBigint(input.createdAt, 'createdAt');
  // independent of each other (the claim guards the key); both must be durable before the completion
  const entry = writeRecoveryEntry(ctx, key, createdAt, deadlineMs).then(async (at) => {
    // the entry is durable; the seq may or may not be spent yet
    await ctx.faults.at('reserve:after-entry');
    return at;
  });
  const [position, seq] = await Promise.all([entry, seqs.next(request.tenantId, request.conversationId)]);
  await ctx.faults.at('reserve:after-entry-and-seq');
  const intent: CommitIntent = { key, identity, request, seq, messageId: input.messageId, createdAt, recipients: input.recipients, publication: null };
  const intentBytes = encodeCommitIntent(intent);
  const ttl = ttlSecondsOf(deadlineMs - ctx.clock.nowMs());
  // independent: the completion (an LWT on the commit row) and a read of the record partition
  const probedAtMs = ctx.clock.nowMs();
  const [rs, free] = await Promise.all([
    ctx.cql.run(ctx.commit.complete, [ttl, intentBytes, createdAt, toCqlBigint(position, 'recovery position'), ...commitKeyParams(key), token]),
    seqIsFree(ctx, request.tenantId, request.conversationId, seq),
  ]);
  if (!applied(rs)) return null;
  await ctx.faults.at('reserve:after-commit');
  const snapshot = { intent, state: 'RESERVED' } as const;
  // birth as the claimant saw it (its clock before the claim): the deadline it wrote every TTL against
  const stored = {
    kind: 'commit',
    snapshot,
    stateCell: 'RESERVED',
    intentBytes,
    bornMicros: (deadlineMs - ctx.auxTtlMs) * 1000n,
    recoveryAt: position,
    token,
  } as const;
  ctx.cache.put(free ? { ...stored, seqFreeAtMs: probedAtMs } : stored, ctx.clock.nowMs());
  return { snapshot, created: true };
}

/**
 * `reserve` on Scylla (ADR-0027). The key is claimed before any seq is spent, so
 * concurrent identical requests — in any number of processes — spend one seq:
 * 1. claim the key (`INSERT … 'CLAIMED' … IF NOT EXISTS`); an existing commit answers by identity
 *    (same bytes → first intent and its state; else `ConflictError`), an existing claim of the same
 *    request is waited on or, when stale or abandoned, taken over (`claim.ts`);
 * 2. together: the recovery index entry (TTL'd, at the writer's position), so the commit, once
 *    completed, is always findable by the scanner (before that, the scanner passes the entry), and
 *    the seq (grouped single CAS per conversation and process, `SequenceAllocator`);
 * 3. the completion: the claim becomes the complete RESERVED commit, only while still ours; together
 *    with it, putRecord's seq-free check (a plain read), so a commit waits on 3 round trips here.
 * `input` is validated once, by the store's entry (`ReserveSingleFlight`).
 * A store error after the claim, or an unknown outcome of the claim itself, releases the claim
 * (`ClaimReleases`: retried in the background while the cluster cannot answer), so a retry takes
 * the key over without waiting out the lease. A crash releases nothing: the lease decides.
 */
export async function reserve(ctx: MessageContext, seqs: SequenceAllocator, releases: ClaimReleases, input: ValidReserveInput): Promise<ReserveResult> {
  const { request } = input;
  const identity = requestIdentity(request);
  const key = { tenantId: request.tenantId, senderId: request.senderId, clientMessageId: request.clientMessageId };
  for (let losses = 0; ; losses++) {
    const attempt = newClaimAttempt(ctx);
    let claim: ClaimOutcome;
    try {
      claim = await claimCommitKey(ctx, key, identity, attempt);
    } catch (err) {
      // the claim (or takeover) LWT may have landed even though its answer was lost
      if (err instanceof UnavailableError) await releases.release(key, attempt);
      throw err;
    }
    if (claim.kind === 'existing') return replayOrConflict(claim.stored, identity);
    let done: ReserveResult | null;
    try {
      await ctx.faults.at('reserve:after-claim');
      done = await completeClaim(ctx, seqs, input, key, identity, claim.token, claim.deadlineMs);
    } catch (err) {
      if (err instanceof StoreError) await releases.release(key, attempt);
      throw err;
    }
    if (done !== null) return done;
    if (losses >= MAX_CLAIM_LOSSES) throw new UnavailableError('the claim of this commit key was taken over repeatedly; retry');
  }
}
