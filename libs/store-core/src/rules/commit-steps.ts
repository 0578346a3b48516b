import { ConflictError, InvalidStateError, NotFoundError } from '../errors/domain-errors';
import type { CommitIntent, CommitSnapshot, MessageRecord } from '../model/message';
import type { Id128 } from '../model/ids';
import { hasReached } from './commit-fsm';
import { bytesEqual, intentsEqual, recordFromIntent, recordsEqual } from './record-from-intent';

/**
 * The step decisions of the commit lifecycle, shared by every `MessageStore` backend: given what the
 * backend holds for a commit key (`null` = no live commit), each function either throws the domain
 * error of the situation — with one message per situation, the same on every backend — or says what
 * to do: `write` (perform this step's conditional state move) or `answer` (the step is already done:
 * return the stored snapshot unchanged). A backend whose conditional write then loses a race reads
 * again and asks again; it never decides on its own.
 */

/** The one message text of each refusal (prefixed with the operation: `reserve: …`). */
export const COMMIT_STEP_TEXTS = Object.freeze({
  otherRequest: 'the commit key holds another request',
  notFound: 'no commit under this key',
  otherIntent: 'the intent is not the stored intent of this commit',
  recordNotFromIntent: 'the record is not recordFromIntent(intent)',
  otherMessageId: 'the commit holds another message id',
  seqTaken: 'another record already holds this seq',
});

/** The `MessageCommitSteps` operations whose refusals the functions below phrase. */
export type CommitOperation = 'reserve' | 'loadCommitForRequest' | 'putRecord' | 'markOutboxPublished' | 'markCommitted' | 'markPublishedAndCommitted';

/** What a backend does for one step after the decision. */
export type StepDecision = { readonly action: 'write' } | { readonly action: 'answer'; readonly snapshot: CommitSnapshot };

const WRITE: StepDecision = Object.freeze({ action: 'write' });

function answer(snapshot: CommitSnapshot): StepDecision {
  return { action: 'answer', snapshot };
}

/** `ConflictError` of `op` with the situation's one text. */
export function commitConflict(op: CommitOperation, text: string): ConflictError {
  return new ConflictError(`${op}: ${text}`);
}

/** `NotFoundError` of `op`: no live commit under the key. */
export function commitNotFound(op: CommitOperation): NotFoundError {
  return new NotFoundError(`${op}: ${COMMIT_STEP_TEXTS.notFound}`);
}

function wrongState(op: CommitOperation, s: CommitSnapshot): InvalidStateError {
  return new InvalidStateError(`${op}: commit is ${s.state}`);
}

/**
 * A stored commit (or claim) under the request's key is a replay only when its identity bytes equal
 * the request's identity; anything else → `ConflictError` ("the commit key holds another request").
 * Used by `reserve` and `loadCommitForRequest`.
 */
export function assertSameRequest(op: 'reserve' | 'loadCommitForRequest', storedIdentity: Uint8Array, identity: Uint8Array): void {
  if (!bytesEqual(storedIdentity, identity)) throw commitConflict(op, COMMIT_STEP_TEXTS.otherRequest);
}

/** `record` must be exactly `recordFromIntent(intent)` (coordinates included), else `ConflictError`. */
export function assertRecordOfIntent(intent: CommitIntent, record: MessageRecord): void {
  if (!recordsEqual(recordFromIntent(intent), record)) throw commitConflict('putRecord', COMMIT_STEP_TEXTS.recordNotFromIntent);
}

/**
 * `putRecord(intent, record)`: unknown key → `NotFoundError`; `intent` not the stored intent (the
 * publication aside) or `record` not `recordFromIntent(intent)` → `ConflictError`; RECORDED or later
 * → answer; RESERVED → write the record and move to RECORDED.
 */
export function decidePutRecord(stored: CommitSnapshot | null, intent: CommitIntent, record: MessageRecord): StepDecision {
  if (stored === null) throw commitNotFound('putRecord');
  if (!intentsEqual(stored.intent, intent, true)) throw commitConflict('putRecord', COMMIT_STEP_TEXTS.otherIntent);
  assertRecordOfIntent(stored.intent, record);
  return hasReached(stored.state, 'RECORDED') ? answer(stored) : WRITE;
}

/**
 * `markOutboxPublished(key, messageId, publication)`: unknown key → `NotFoundError`; another message
 * id → `ConflictError`; OUTBOXED or later → answer (the first publication is kept); RESERVED →
 * `InvalidStateError`; RECORDED → write.
 */
export function decideMarkOutboxPublished(stored: CommitSnapshot | null, messageId: Id128): StepDecision {
  if (stored === null) throw commitNotFound('markOutboxPublished');
  if (stored.intent.messageId !== messageId) throw commitConflict('markOutboxPublished', COMMIT_STEP_TEXTS.otherMessageId);
  if (hasReached(stored.state, 'OUTBOXED')) return answer(stored);
  if (stored.state !== 'RECORDED') throw wrongState('markOutboxPublished', stored);
  return WRITE;
}

/** `markCommitted(key)`: unknown key → `NotFoundError`; COMMITTED → answer; OUTBOXED → write; earlier → `InvalidStateError`. */
export function decideMarkCommitted(stored: CommitSnapshot | null): StepDecision {
  if (stored === null) throw commitNotFound('markCommitted');
  if (stored.state === 'COMMITTED') return answer(stored);
  if (stored.state !== 'OUTBOXED') throw wrongState('markCommitted', stored);
  return WRITE;
}

/**
 * `markPublishedAndCommitted(intent, publication)`: unknown key → `NotFoundError`; `intent` not the
 * stored intent (the publication aside) → `ConflictError`; COMMITTED → answer; RECORDED or OUTBOXED →
 * write (to COMMITTED; an OUTBOXED commit keeps its first publication); RESERVED → `InvalidStateError`.
 */
export function decideMarkPublishedAndCommitted(stored: CommitSnapshot | null, intent: CommitIntent): StepDecision {
  if (stored === null) throw commitNotFound('markPublishedAndCommitted');
  if (!intentsEqual(stored.intent, intent, true)) throw commitConflict('markPublishedAndCommitted', COMMIT_STEP_TEXTS.otherIntent);
  if (stored.state === 'COMMITTED') return answer(stored);
  if (stored.state === 'RESERVED') throw wrongState('markPublishedAndCommitted', stored);
  return WRITE;
}
