import { InvalidStateError } from '../errors/domain-errors';
import { COMMIT_STATES } from '../model/message';
import type { CommitState } from '../model/message';

/**
 * Position of a state in the commit lifecycle `RESERVED(0) → RECORDED(1) → OUTBOXED(2) → COMMITTED(3)`.
 * States are totally ordered; a commit only ever moves forward.
 */
export function commitStateIndex(s: CommitState): number {
  const i = COMMIT_STATES.indexOf(s);
  if (i < 0) throw new InvalidStateError(`unknown commit state ${JSON.stringify(s)}`);
  return i;
}

/**
 * True when `to` is exactly the next state after `from` (one step forward). Staying in a state is
 * not an advance (a repeated operation is answered with the current snapshot instead), and no
 * state may be skipped or left backwards.
 */
export function canAdvance(from: CommitState, to: CommitState): boolean {
  return commitStateIndex(to) === commitStateIndex(from) + 1;
}

/** Throws `InvalidStateError` unless `canAdvance(from, to)`. */
export function assertAdvance(from: CommitState, to: CommitState): void {
  if (!canAdvance(from, to)) throw new InvalidStateError(`commit cannot move ${from} → ${to}`);
}

/** True when `s` is `target` or a later state (the operation that leads to `target` is already done). */
export function hasReached(s: CommitState, target: CommitState): boolean {
  return commitStateIndex(s) >= commitStateIndex(target);
}

/** True only for `COMMITTED`: nothing is left to do, the original ACK is final. */
export function isTerminal(s: CommitState): boolean {
  return s === 'COMMITTED';
}

/** The state after `s`, or null for the terminal state. */
export function nextCommitState(s: CommitState): CommitState | null {
  return COMMIT_STATES[commitStateIndex(s) + 1] ?? null;
}
