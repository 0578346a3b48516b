import { InvariantViolationError } from '../errors/domain-errors';
import type { Id128 } from '../model/ids';
import type { CommitIntent, CommitSnapshot } from '../model/message';
import type { MessageStore, ReserveInput } from '../ports/message-store';
import type { OutboxPublisher } from '../ports/outbox-publisher';
import { commitStateIndex } from '../rules/commit-fsm';
import { recordFromIntent } from '../rules/record-from-intent';

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

/**
 * Drives one commit `RESERVED → RECORDED → OUTBOXED → COMMITTED` over a `MessageStore` and an
 * `OutboxPublisher`; the only place that publishes and the only place an ACK comes from.
 *
 * Each step is idempotent at the store, so the committer may die between any two steps: a later
 * `resume` (replayed request or `RecoveryRunner`) continues from the stored state with the same
 * intent — same seq, same message id, the record rebuilt by `recordFromIntent`, the outbox event
 * re-published byte-identically (at-least-once to Kafka; the first publication is kept). Errors are
 * never swallowed: a failed publish leaves the commit RECORDED for recovery. Holds no state.
 */
export class DurableMessageCommitter {
  constructor(
    private readonly store: MessageStore,
    private readonly publisher: OutboxPublisher,
  ) {}

  /**
   * Reserves (or finds) the commit of `input.request` and finishes it. A replay of a COMMITTED
   * commit returns the original answer without publishing again. A different request under the
   * same key → the store's `ConflictError`. Resolves only once the commit is COMMITTED.
   */
  async send(input: ReserveInput): Promise<SendOutcome> {
    const { snapshot, created } = await this.store.reserve(input);
    const done = await this.resume(snapshot);
    const { intent } = done;
    return { intent, seq: intent.seq, messageId: intent.messageId, createdAt: intent.createdAt, replay: !created };
  }

  /**
   * Continues a commit from `snapshot` until COMMITTED and returns the final snapshot. A stale
   * snapshot is harmless: the store answers an already-done step with its current snapshot. A step
   * whose answer does not move the state forward → `InvariantViolationError` (never loops).
   */
  async resume(snapshot: CommitSnapshot): Promise<CommitSnapshot> {
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
        return this.store.putRecord(intent, recordFromIntent(intent));
      case 'RECORDED': {
        const publication = await this.publisher.publish(intent);
        return this.store.markOutboxPublished(intent.key, intent.messageId, publication);
      }
      default:
        return this.store.markCommitted(intent.key);
    }
  }
}
