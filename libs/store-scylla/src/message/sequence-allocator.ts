import { InvariantViolationError, UnavailableError, id128ToBytes } from '@qim/store-core';
import type { Id128 } from '@qim/store-core';
import { applied, fromCqlBigint, toCqlBigint } from '../session/statements';
import type { MessageContext } from './message-context';

/** How long one allocation may keep losing CAS rounds before it gives up with `UnavailableError`. */
const ALLOCATION_DEADLINE_MS = 60_000;
/** Conversations whose last seen `next` is remembered (a hint only: a stale value just loses one CAS). */
const HINT_CAPACITY = 10_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Single-step seq allocation on `conversation_sequence`: `INSERT … IF NOT EXISTS` issues seq 1,
 * then every seq is `UPDATE … SET next = n + 1 IF next = n` at LOCAL_SERIAL. A lost CAS returns the
 * current `next` and the allocation retries from it; nothing is pre-leased. A CAS whose outcome is
 * unknown (timeout) may have issued a seq nobody uses: that seq is a hole, never reused, because
 * every retry starts from the value the server reports.
 */
export class SequenceAllocator {
  private readonly hints = new Map<string, bigint>();

  constructor(private readonly ctx: MessageContext) {}

  /** LWT rounds sent by this allocator (benchmark observability). */
  lwtRounds = 0;

  async next(tenantId: Id128, conversationId: Id128): Promise<bigint> {
    const hintKey = `${tenantId}:${conversationId}`;
    const key = [id128ToBytes(tenantId), id128ToBytes(conversationId)];
    const deadline = Date.now() + ALLOCATION_DEADLINE_MS;
    let expected: bigint | null | undefined = this.hints.get(hintKey);
    for (let round = 0; ; round++) {
      try {
        if (expected === undefined) expected = await this.read(key);
        const issued: { won: boolean; next: bigint | null } = expected === null ? await this.init(key) : await this.step(key, expected);
        if (issued.won && issued.next !== null) {
          this.remember(hintKey, issued.next);
          return issued.next;
        }
        expected = issued.next;
      } catch (err) {
        if (!(err instanceof UnavailableError) || Date.now() > deadline) throw err;
        expected = undefined;
      }
      if (Date.now() > deadline) throw new UnavailableError(`seq allocation for conversation ${conversationId} kept losing CAS rounds`);
      if (round > 0) await sleep(Math.random() * Math.min(20, round * 2));
    }
  }

  private async read(key: Buffer[]): Promise<bigint | null> {
    const row = (await this.ctx.sequence.select.run(key)).rows[0];
    return row === undefined ? null : fromCqlBigint(row['next'], 'conversation_sequence.next');
  }

  private async init(key: Buffer[]): Promise<{ won: boolean; next: bigint }> {
    this.lwtRounds++;
    const rs = await this.ctx.sequence.init.run([...key, toCqlBigint(1n, 'seq')]);
    if (applied(rs)) return { won: true, next: 1n };
    return { won: false, next: this.current(rs.rows[0]?.['next']) };
  }

  private async step(key: Buffer[], expected: bigint): Promise<{ won: boolean; next: bigint | null }> {
    this.lwtRounds++;
    const candidate = toCqlBigint(expected + 1n, 'seq');
    const rs = await this.ctx.sequence.step.run([candidate, ...key, toCqlBigint(expected, 'seq')]);
    if (applied(rs)) return { won: true, next: candidate };
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
