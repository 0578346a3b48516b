import { randomBytes } from 'node:crypto';
import { UnavailableError, assertSameRequest } from '@qim/store-core';
import type { CommitKey } from '@qim/store-core';
import { applied } from '../session/statements';
import { auxDeadlineMs, commitKeyParams, decodeCommitRow, loadCommitRow, remainingAuxTtlSeconds } from './commit-rows';
import type { StoredClaim, StoredCommit, StoredRow } from './commit-rows';
import type { MessageContext } from './message-context';
import { ttlSecondsOf } from './message-context';

/** Default claim lease: a claim older than this (by its token's write time) may be taken over. */
export const DEFAULT_CLAIM_LEASE_MS = 15_000n;
/** Longest a reserve waits on someone else's claim beyond the lease before giving up (`UnavailableError`). */
const CLAIM_WAIT_SLACK_MS = 30_000n;
const FIRST_POLL_MS = 10;
const MAX_POLL_MS = 200;
const EMPTY_TOKEN = Buffer.alloc(0);

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** What claiming a commit key gave: the key's existing commit, or the claim is ours. */
export type ClaimOutcome =
  | { readonly kind: 'existing'; readonly stored: StoredCommit }
  | { readonly kind: 'owned'; readonly token: Buffer; readonly deadlineMs: bigint };

/**
 * Claims may be taken over when their claimant abandoned them (empty token) or when the current
 * token is older than the lease: its claimant is taken to have crashed (a claimant stalled longer
 * than the lease is treated the same way; its completion then fails and its seq is a hole).
 */
export function isTakeoverAllowed(claim: StoredClaim, nowMs: bigint, leaseMs: bigint): boolean {
  if (claim.token.length === 0) return true;
  return claim.claimMicros >= 0n && nowMs - claim.claimMicros / 1000n > leaseMs;
}

/** A claim or commit of another request under the key → the shared `ConflictError` of reserve. */
function assertSameKeyRequest(row: StoredRow | null, identity: Buffer): void {
  if (row !== null) assertSameRequest('reserve', row.kind === 'claim' ? row.identity : row.snapshot.intent.identity, identity);
}

/**
 * Takes the commit key before any seq is spent: `INSERT … 'CLAIMED' … IF NOT EXISTS`. A complete
 * commit already there is returned (the caller answers replay or conflict). A claim of a different
 * request → `ConflictError`. A claim of the same request is watched (plain reads, 10 → 200 ms apart)
 * until it completes, or taken over (`IF state = 'CLAIMED' AND claim = <seen token>`) once abandoned or older than the
 * lease. A row in the middle of expiring is waited out; past the wait bound → `UnavailableError`.
 */
export async function claimCommitKey(ctx: MessageContext, key: CommitKey, identity: Buffer): Promise<ClaimOutcome> {
  const keyParams = commitKeyParams(key);
  const token = randomBytes(16);
  const giveUpAt = ctx.clock.nowMs() + ctx.claimLeaseMs + CLAIM_WAIT_SLACK_MS;
  let pause = FIRST_POLL_MS;
  const wait = async (): Promise<void> => {
    if (ctx.clock.nowMs() > giveUpAt) throw new UnavailableError('the commit key stayed claimed by another reserve; retry');
    await sleep(pause);
    pause = Math.min(MAX_POLL_MS, pause * 2);
  };
  for (;;) {
    const startedMs = ctx.clock.nowMs();
    const rs = await ctx.cql.run(ctx.commit.claim, [...keyParams, identity, token, ttlSecondsOf(ctx.auxTtlMs)]);
    if (applied(rs)) return { kind: 'owned', token, deadlineMs: startedMs + ctx.auxTtlMs };
    const seen = decodeCommitRow(rs.rows[0], key);
    assertSameKeyRequest(seen, identity);
    if (seen?.kind === 'commit') return { kind: 'existing', stored: seen };
    // someone else's claim (or a row in the middle of expiring): watch it with plain reads
    for (;;) {
      const row = await loadCommitRow(ctx, key);
      assertSameKeyRequest(row, identity);
      if (row?.kind === 'commit') return { kind: 'existing', stored: row };
      if (row === null) {
        await wait();
        break;
      }
      if (isTakeoverAllowed(row, ctx.clock.nowMs(), ctx.claimLeaseMs)) {
        const taken = await ctx.cql.run(ctx.commit.reclaim, [remainingAuxTtlSeconds(ctx, row), token, ...keyParams, row.token]);
        if (applied(taken)) return { kind: 'owned', token, deadlineMs: auxDeadlineMs(ctx, row.bornMicros) ?? startedMs + ctx.auxTtlMs };
        continue;
      }
      await wait();
    }
  }
}

/**
 * Best effort, after a reserve failed with a store error before completing its claim: empties the
 * token (only if it is still ours), so a retry may take the key over at once instead of waiting
 * out the lease. If the completion did land (an unknown outcome), the condition fails and nothing
 * changes.
 */
export async function abandonClaim(ctx: MessageContext, key: CommitKey, token: Buffer, deadlineMs: bigint): Promise<void> {
  await ctx.cql.run(ctx.commit.reclaim, [ttlSecondsOf(deadlineMs - ctx.clock.nowMs()), EMPTY_TOKEN, ...commitKeyParams(key), token]);
}
