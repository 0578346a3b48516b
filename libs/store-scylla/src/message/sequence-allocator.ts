import { InvariantViolationError, UnavailableError, id128ToBytes } from '@qim/store-core';
import type { Id128 } from '@qim/store-core';
import { applied, fromCqlBigint, toCqlBigint } from '../session/statements';
import type { MessageContext } from './message-context';

/** How long one group may keep losing CAS rounds before its waiters get `UnavailableError`. */
const ALLOCATION_DEADLINE_MS = 60_000;
/** Conversations whose last seen `next` is remembered (a hint only: a stale value just loses one CAS). */
const HINT_CAPACITY = 10_000;
/** Most waiters one CAS serves (a bound on one group, not a lease: every seq issued has a waiter). */
export const MAX_GROUP = 256;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Waiter {
  readonly resolve: (seq: bigint) => void;
  readonly reject: (err: unknown) => void;
}

/** The waiters of one conversation in this process; at most one CAS of theirs is in flight. */
interface Lane {
  readonly key: Buffer[];
  readonly conversationId: Id128;
  readonly queue: Waiter[];
}

/** Outcome of one CAS round: `won` → seqs `next − k + 1 … next` are ours; else `next` is the current value (null = no row). */
interface Round {
  readonly won: boolean;
  readonly next: bigint | null;
}

/**
 * Grouped seq allocation on `conversation_sequence` (format unchanged: `next` = highest issued
 * seq). Concurrent requests for one conversation in this process queue behind a single CAS: the
 * k waiters present when a round starts get k consecutive seqs from one `UPDATE … SET next = n + k
 * IF next = n` (or `INSERT … next = k IF NOT EXISTS` for a new conversation) at LOCAL_SERIAL.
 * Waiters arriving while a round is in flight join the next round (or the retry of a lost one).
 * Nothing is pre-leased: k is exactly the number of callers waiting, and each gets one seq.
 *
 * A lost CAS returns the current `next` and the group retries from it. A CAS whose outcome is
 * unknown (timeout) may have issued seqs nobody uses: they are holes, never reused, because every
 * retry starts from the value the server reports.
 */
export class SequenceAllocator {
  private readonly lanes = new Map<string, Lane>();
  private readonly hints = new Map<string, bigint>();

  /** Seqs issued by won rounds (so `seqsIssued / wonRounds` is the mean group size). */
  seqsIssued = 0;
  wonRounds = 0;
  /** Seqs a CAS of unknown outcome (timeout) may have issued: at most this many holes without a crash. */
  seqsInDoubt = 0;

  constructor(private readonly ctx: MessageContext) {}

  /** One seq of the conversation, shared out of a grouped CAS with the other callers waiting now. */
  next(tenantId: Id128, conversationId: Id128): Promise<bigint> {
    const laneKey = `${tenantId}:${conversationId}`;
    const existing = this.lanes.get(laneKey);
    const lane: Lane = existing ?? { key: [id128ToBytes(tenantId), id128ToBytes(conversationId)], conversationId, queue: [] };
    const promise = new Promise<bigint>((resolve, reject) => {
      lane.queue.push({ resolve, reject });
    });
    if (existing === undefined) {
      this.lanes.set(laneKey, lane);
      void this.drain(laneKey, lane);
    }
    return promise;
  }

  /** Serves the lane's queue, one group at a time, until it is empty; then forgets the lane. */
  private async drain(laneKey: string, lane: Lane): Promise<void> {
    try {
      while (lane.queue.length > 0) await this.serveGroup(laneKey, lane);
    } finally {
      this.lanes.delete(laneKey);
    }
  }

  private async serveGroup(laneKey: string, lane: Lane): Promise<void> {
    const group = lane.queue.splice(0, MAX_GROUP);
    const deadline = Date.now() + ALLOCATION_DEADLINE_MS;
    let expected: bigint | null | undefined = this.hints.get(laneKey);
    try {
      for (let round = 0; ; round++) {
        let casK = 0;
        try {
          if (expected === undefined) expected = await this.read(lane.key);
          const k = BigInt(group.length);
          casK = group.length;
          const issued: Round = expected === null ? await this.init(lane.key, k) : await this.step(lane.key, expected, k);
          if (issued.won && issued.next !== null) {
            this.remember(laneKey, issued.next);
            this.wonRounds++;
            this.seqsIssued += group.length;
            const first = issued.next - k + 1n;
            group.forEach((w, i) => w.resolve(first + BigInt(i)));
            return;
          }
          expected = issued.next;
        } catch (err) {
          this.seqsInDoubt += casK;
          if (!(err instanceof UnavailableError) || Date.now() > deadline) throw err;
          expected = undefined;
        }
        if (Date.now() > deadline) throw new UnavailableError(`seq allocation for conversation ${lane.conversationId} kept losing CAS rounds`);
        if (round > 0) await sleep(Math.random() * Math.min(20, round * 2));
        // callers that arrived meanwhile ride along on the retry
        group.push(...lane.queue.splice(0, MAX_GROUP - group.length));
      }
    } catch (err) {
      for (const w of group) w.reject(err);
    }
  }

  private async read(key: Buffer[]): Promise<bigint | null> {
    const row = (await this.ctx.cql.run(this.ctx.sequence.select, key)).rows[0];
    return row === undefined ? null : fromCqlBigint(row['next'], 'conversation_sequence.next');
  }

  private async init(key: Buffer[], k: bigint): Promise<Round> {
    const candidate = toCqlBigint(k, 'seq');
    const rs = await this.ctx.cql.run(this.ctx.sequence.init, [...key, candidate]);
    if (applied(rs)) return { won: true, next: k };
    return { won: false, next: this.current(rs.rows[0]?.['next']) };
  }

  private async step(key: Buffer[], expected: bigint, k: bigint): Promise<Round> {
    const candidate = toCqlBigint(expected + k, 'seq');
    const rs = await this.ctx.cql.run(this.ctx.sequence.step, [candidate, ...key, toCqlBigint(expected, 'seq')]);
    if (applied(rs)) return { won: true, next: expected + k };
    const current: unknown = rs.rows[0]?.['next'];
    // No current value: the counter row does not exist (yet), so the next round initialises it.
    return { won: false, next: current === null || current === undefined ? null : this.current(current) };
  }

  private current(v: unknown): bigint {
    if (v === null || v === undefined) throw new InvariantViolationError('conversation_sequence CAS returned no current value');
    return fromCqlBigint(v, 'conversation_sequence.next');
  }

  private remember(key: string, next: bigint): void {
    this.hints.delete(key);
    this.hints.set(key, next);
    if (this.hints.size > HINT_CAPACITY) {
      const oldest = this.hints.keys().next().value;
      if (oldest !== undefined) this.hints.delete(oldest);
    }
  }
}
