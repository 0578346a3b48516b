import { commitKeyOf, commitKeyString } from '../codecs/send-request';
import { InvariantViolationError } from '../errors/domain-errors';
import type { Id128 } from '../model/ids';
import type { CommitIntent, CommitSnapshot, SendRequest } from '../model/message';
import type { MessageCommitSteps, ReserveInput } from '../ports/message-commit-steps';
import type { OutboxPublisher } from '../ports/outbox-publisher';
import { commitStateIndex } from '../rules/commit-fsm';
import { recordFromIntent, requestsEqual } from '../rules/record-from-intent';
import { validateReserveInput } from '../rules/request-validation';

/** The answer of a send (the ACK): the first intent's coordinates, identical on every replay. */
export interface SendOutcome {
  readonly intent: CommitIntent;
  /** Per-conversation seq fixed by the first reservation. */
  readonly seq: bigint;
  readonly messageId: Id128;
  /** ms since epoch, fixed by the first reservation. */
  readonly createdAt: bigint;
  /** True when the commit already existed (this call was a retry / replay of the same request). */
  readonly replay: boolean;
}

/** A send in progress in this process: the request it is for and its answer. */
interface SendFlight {
  readonly request: SendRequest;
  readonly outcome: Promise<SendOutcome>;
}

const ignore = (): void => undefined;

/** The timed steps of a commit: the store's reserve, its record write, the Kafka publication, the final mark. */
export type CommitStep = 'reserve' | 'record' | 'publish' | 'commit';

/**
 * Told how long each step of a commit took once it succeeded (seconds, monotonic clock): where a
 * send's time goes. A step that failed is not reported; an observer that throws is ignored.
 */
export interface CommitStepObserver {
  step(step: CommitStep, seconds: number): void;
}

/**
 * Drives one commit `RESERVED → RECORDED → (publish) → COMMITTED` over the store's `MessageCommitSteps` and an
 * `OutboxPublisher`; the only place that publishes and the only place an ACK comes from.
 *
 * Each step is idempotent at the store, so the committer may die between any two steps: a later
 * `resume` (replayed request or `RecoveryRunner`) continues from the stored state with the same
 * intent — same seq, same message id, the record rebuilt by `recordFromIntent`, the outbox event
 * re-published byte-identically (at-least-once to Kafka; the first publication is kept). Errors are
 * never swallowed: a failed publish leaves the commit RECORDED for recovery.
 *
 * Single flight: concurrent calls for one commit key in this process share one flight. A `send` of
 * an equal request while one is in progress waits for it and gets the same answer (with
 * `replay: true`, as a retry would: exactly one caller sees `replay: false`), or its error; a `send`
 * of a different request under that key waits for the flight to end, then runs on its own (and gets
 * the store's `ConflictError`). A `resume` of a commit already being finished here joins that run.
 * The only state held is the set of flights in progress.
 */
export class DurableMessageCommitter {
  private readonly sends = new Map<string, SendFlight>();
  private readonly finishing = new Map<string, Promise<CommitSnapshot>>();

  constructor(
    private readonly store: MessageCommitSteps,
    private readonly publisher: OutboxPublisher,
    private readonly observer?: CommitStepObserver,
  ) {}

  /** Runs one step and reports its duration when it succeeded. */
  private async timed<T>(step: CommitStep, run: () => Promise<T>): Promise<T> {
    if (this.observer === undefined) return run();
    const start = performance.now();
    const out = await run();
    try {
      this.observer.step(step, (performance.now() - start) / 1000);
    } catch {
      // metrics must never fail a send
    }
    return out;
  }

  /**
   * Reserves (or finds) the commit of `input.request` and finishes it. A replay of a COMMITTED
   * commit returns the original answer without publishing again. A different request under the
   * same key → the store's `ConflictError`. Resolves only once the commit is COMMITTED.
   */
  async send(raw: ReserveInput): Promise<SendOutcome> {
    // Validated once, here (free when the caller validated it already); the store trusts the value.
    const input = validateReserveInput(raw);
    const { request } = input;
    const key = commitKeyString(commitKeyOf(request));
    for (let flight = this.sends.get(key); flight !== undefined; flight = this.sends.get(key)) {
      if (requestsEqual(flight.request, request)) return { ...(await flight.outcome), replay: true };
      await flight.outcome.then(ignore, ignore);
    }
    const flight: SendFlight = { request, outcome: this.sendOnce(input) };
    this.sends.set(key, flight);
    try {
      return await flight.outcome;
    } finally {
      if (this.sends.get(key) === flight) this.sends.delete(key);
    }
  }

  /**
   * Continues a commit from `snapshot` until COMMITTED and returns the final snapshot. A stale
   * snapshot is harmless: the store answers an already-done step with its current snapshot. A step
   * whose answer does not move the state forward → `InvariantViolationError` (never loops).
   */
  resume(snapshot: CommitSnapshot): Promise<CommitSnapshot> {
    const key = commitKeyString(snapshot.intent.key);
    const running = this.finishing.get(key);
    if (running !== undefined) return running;
    const run = this.finish(snapshot);
    this.finishing.set(key, run);
    const forget = (): void => {
      if (this.finishing.get(key) === run) this.finishing.delete(key);
    };
    run.then(forget, forget);
    return run;
  }

  private async sendOnce(input: ReserveInput): Promise<SendOutcome> {
    const { snapshot, created } = await this.timed('reserve', () => this.store.reserve(input));
    const { intent } = await this.resume(snapshot);
    return { intent, seq: intent.seq, messageId: intent.messageId, createdAt: intent.createdAt, replay: !created };
  }

  private async finish(snapshot: CommitSnapshot): Promise<CommitSnapshot> {
    let current = snapshot;
    while (current.state !== 'COMMITTED') {
      const next = await this.step(current);
      if (commitStateIndex(next.state) <= commitStateIndex(current.state)) {
        throw new InvariantViolationError(`commit step from ${current.state} answered ${next.state}`);
      }
      current = next;
    }
    return current;
  }

  private async step(s: CommitSnapshot): Promise<CommitSnapshot> {
    const { intent } = s;
    switch (s.state) {
      case 'RESERVED':
        return this.timed('record', () => this.store.putRecord(intent, recordFromIntent(intent)));
      case 'RECORDED': {
        const publication = await this.timed('publish', () => this.publisher.publish(intent));
        return this.timed('commit', () => this.store.markPublishedAndCommitted(intent, publication));
      }
      default:
        return this.timed('commit', () => this.store.markCommitted(intent.key));
    }
  }
}
