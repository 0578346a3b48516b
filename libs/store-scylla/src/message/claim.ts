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
  { readonly kind: 'existing'; readonly stored: StoredCommit } | { readonly kind: 'owned'; readonly token: Buffer; readonly deadlineMs: bigint };

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
export async function claimCommitKey(ctx: MessageContext, key: CommitKey, identity: Buffer, attempt: ClaimAttempt): Promise<ClaimOutcome> {
  const keyParams = commitKeyParams(key);
  const { token } = attempt;
  const giveUpAt = ctx.clock.nowMs() + ctx.claimLeaseMs + CLAIM_WAIT_SLACK_MS;
  let pause = FIRST_POLL_MS;
  const wait = async (): Promise<void> => {
    if (ctx.clock.nowMs() > giveUpAt) throw new UnavailableError('the commit key stayed claimed by another reserve; retry');
    await sleep(pause);
    pause = Math.min(MAX_POLL_MS, pause * 2);
  };
  for (;;) {
    const startedMs = ctx.clock.nowMs();
    attempt.deadlineMs = startedMs + ctx.auxTtlMs;
    const rs = await ctx.cql.run(ctx.commit.claim, [...keyParams, identity, token, ttlSecondsOf(ctx.auxTtlMs)]);
    await ctx.faults.at('reserve:claim-answered');
    if (applied(rs)) return { kind: 'owned', token, deadlineMs: attempt.deadlineMs };
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
        attempt.deadlineMs = auxDeadlineMs(ctx, row.bornMicros) ?? startedMs + ctx.auxTtlMs;
        const taken = await ctx.cql.run(ctx.commit.reclaim, [remainingAuxTtlSeconds(ctx, row), token, ...keyParams, row.token]);
        if (applied(taken)) return { kind: 'owned', token, deadlineMs: attempt.deadlineMs };
        continue;
      }
      await wait();
    }
  }
}

/**
 * One reserve's claim attempt: the token it claims with, and the deadline of the row that token
 * would live in (set before each claim or takeover LWT is sent). When that LWT fails with an
 * unknown outcome, the token may be in the row: `ClaimReleases.release` is told both.
 */
export interface ClaimAttempt {
  readonly token: Buffer;
  deadlineMs: bigint;
}

export function newClaimAttempt(ctx: MessageContext): ClaimAttempt {
  return { token: randomBytes(16), deadlineMs: ctx.clock.nowMs() + ctx.auxTtlMs };
}

/** First pause between release attempts after one failed, doubling up to `MAX_RELEASE_PAUSE_MS`. */
const FIRST_RELEASE_PAUSE_MS = 100;
const MAX_RELEASE_PAUSE_MS = 1_000;

/**
 * Releases the claims of failed reserves: `UPDATE … SET claim = <empty> IF state = 'CLAIMED' AND
 * claim = <token>`, so another reserve of the request (a client retry, here or in another writer)
 * takes the key over at once instead of waiting out the lease. Only the token's own claim is
 * released: if the token never landed, or the claim was completed or taken over meanwhile, the
 * condition fails and nothing changes. That makes a release safe after any store error, including
 * the unknown outcome of the claim LWT itself (a node killed mid-Paxos: the claim may have landed
 * while the reserve saw a timeout).
 *
 * The first attempt is awaited by the failing reserve. When it fails too (the cluster still cannot
 * run LWTs — for a killed node, until the others stop counting it alive), it is retried in the
 * background, 100 ms → 1 s apart, until the cluster answers, the lease has passed (from then on a
 * retry may take the claim over anyway) or the row's deadline has. `stop()` (the store's close)
 * cancels what is still waiting.
 */
export class ClaimReleases {
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(private readonly ctx: MessageContext) {}

  /** Releases `attempt`'s claim of `key`; resolves after the first try, keeps trying in the background. */
  async release(key: CommitKey, attempt: ClaimAttempt): Promise<void> {
    const giveUpAt = this.ctx.clock.nowMs() + this.ctx.claimLeaseMs;
    if (await this.tryOnce(key, attempt)) return;
    let pause = FIRST_RELEASE_PAUSE_MS;
    const again = (): void => {
      if (this.stopped || this.ctx.clock.nowMs() + BigInt(pause) > giveUpAt) return;
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        void this.tryOnce(key, attempt).then((done) => {
          pause = Math.min(MAX_RELEASE_PAUSE_MS, pause * 2);
          if (!done) again();
        });
      }, pause);
      timer.unref();
      this.timers.add(timer);
    };
    again();
  }

  /** Stops every release still waiting for its next try. */
  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  /** True when the cluster answered (released or nothing to release) or there is nothing left to do. */
  private async tryOnce(key: CommitKey, attempt: ClaimAttempt): Promise<boolean> {
    const leftMs = attempt.deadlineMs - this.ctx.clock.nowMs();
    if (this.stopped || leftMs <= 0n) return true;
    try {
      await this.ctx.faults.at('reserve:release-claim');
      await this.ctx.cql.run(this.ctx.commit.reclaim, [ttlSecondsOf(leftMs), EMPTY_TOKEN, ...commitKeyParams(key), attempt.token]);
      return true;
    } catch (err) {
      // an unknown outcome is retried (the same conditional update); anything else ends the release
      return !(err instanceof UnavailableError);
    }
  }
}
