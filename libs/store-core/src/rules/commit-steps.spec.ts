import { ConflictError, InvalidStateError, NotFoundError } from '../errors/domain-errors';
import type { Id128 } from '../model/ids';
import type { CommitIntent, CommitSnapshot, CommitState } from '../model/message';
import { requestIdentity } from '../codecs/send-request';
import { SAMPLE_SEND_REQUEST } from '../testing/sample-request';
import {
  COMMIT_STEP_TEXTS,
  assertRecordOfIntent,
  assertSameRequest,
  decideMarkCommitted,
  decideMarkOutboxPublished,
  decideMarkPublishedAndCommitted,
  decidePutRecord,
} from './commit-steps';
import { recordFromIntent } from './record-from-intent';
import { reservedIntentOf } from './seq-claim';

const id = (n: number): Id128 => n.toString(16).padStart(32, '0') as Id128;
const request = SAMPLE_SEND_REQUEST;
const identity = requestIdentity(request);
const intent: CommitIntent = reservedIntentOf(request, identity, [id(2), id(5)], { identity, seq: 7n, messageId: id(70), createdAt: 1_000n });
const pub = { topic: 'qim.messages', partition: 1, offset: 9n };
const at = (state: CommitState, publication = state === 'OUTBOXED' || state === 'COMMITTED' ? pub : null): CommitSnapshot => ({
  intent: { ...intent, publication },
  state,
});

function refusal(f: () => unknown): Error {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a refusal');
}

describe('commit step decisions', () => {
  it('reserve / loadCommitForRequest: same identity passes, another identity is one CONFLICT text', () => {
    expect(() => assertSameRequest('reserve', Buffer.from(identity), identity)).not.toThrow();
    const e = refusal(() => assertSameRequest('reserve', Buffer.alloc(32), identity));
    expect(e).toBeInstanceOf(ConflictError);
    expect(e.message).toBe(`reserve: ${COMMIT_STEP_TEXTS.otherRequest}`);
    expect(refusal(() => assertSameRequest('loadCommitForRequest', Buffer.alloc(32), identity)).message).toBe(
      `loadCommitForRequest: ${COMMIT_STEP_TEXTS.otherRequest}`,
    );
  });

  it('putRecord: write from RESERVED, answer from RECORDED on (publication aside), refusals with their texts', () => {
    const record = recordFromIntent(intent);
    expect(decidePutRecord(at('RESERVED'), intent, record)).toEqual({ action: 'write' });
    for (const s of ['RECORDED', 'OUTBOXED', 'COMMITTED'] as const)
      expect(decidePutRecord(at(s), intent, record)).toEqual({ action: 'answer', snapshot: at(s) });
    expect(refusal(() => decidePutRecord(null, intent, record))).toEqual(new NotFoundError(`putRecord: ${COMMIT_STEP_TEXTS.notFound}`));
    const other = refusal(() => decidePutRecord(at('RESERVED'), { ...intent, recipients: [id(9)] }, record));
    expect(other).toBeInstanceOf(ConflictError);
    expect(other.message).toBe(`putRecord: ${COMMIT_STEP_TEXTS.otherIntent}`);
    const bad = refusal(() => decidePutRecord(at('RECORDED'), intent, { ...record, body: Buffer.from('x') }));
    expect(bad).toBeInstanceOf(ConflictError);
    expect(bad.message).toBe(`putRecord: ${COMMIT_STEP_TEXTS.recordNotFromIntent}`);
    expect(() => assertRecordOfIntent(intent, { ...record, seq: 8n })).toThrow(ConflictError);
  });

  it('markOutboxPublished: RECORDED writes, OUTBOXED/COMMITTED answer, RESERVED is INVALID_STATE, other id CONFLICT', () => {
    expect(decideMarkOutboxPublished(at('RECORDED'), intent.messageId)).toEqual({ action: 'write' });
    expect(decideMarkOutboxPublished(at('OUTBOXED'), intent.messageId)).toEqual({ action: 'answer', snapshot: at('OUTBOXED') });
    expect(decideMarkOutboxPublished(at('COMMITTED'), intent.messageId)).toEqual({ action: 'answer', snapshot: at('COMMITTED') });
    const state = refusal(() => decideMarkOutboxPublished(at('RESERVED'), intent.messageId));
    expect(state).toBeInstanceOf(InvalidStateError);
    expect(state.message).toBe('markOutboxPublished: commit is RESERVED');
    expect(refusal(() => decideMarkOutboxPublished(at('RECORDED'), id(71))).message).toBe(`markOutboxPublished: ${COMMIT_STEP_TEXTS.otherMessageId}`);
    expect(refusal(() => decideMarkOutboxPublished(null, intent.messageId))).toBeInstanceOf(NotFoundError);
  });

  it('markCommitted: only OUTBOXED writes; COMMITTED answers; earlier states are INVALID_STATE', () => {
    expect(decideMarkCommitted(at('OUTBOXED'))).toEqual({ action: 'write' });
    expect(decideMarkCommitted(at('COMMITTED'))).toEqual({ action: 'answer', snapshot: at('COMMITTED') });
    expect(refusal(() => decideMarkCommitted(at('RECORDED'))).message).toBe('markCommitted: commit is RECORDED');
    expect(refusal(() => decideMarkCommitted(at('RESERVED')))).toBeInstanceOf(InvalidStateError);
    expect(refusal(() => decideMarkCommitted(null))).toBeInstanceOf(NotFoundError);
  });

  it('markPublishedAndCommitted: RECORDED and OUTBOXED write, COMMITTED answers, RESERVED refused, other intent CONFLICT', () => {
    expect(decideMarkPublishedAndCommitted(at('RECORDED'), intent)).toEqual({ action: 'write' });
    expect(decideMarkPublishedAndCommitted(at('OUTBOXED'), intent)).toEqual({ action: 'write' });
    expect(decideMarkPublishedAndCommitted(at('COMMITTED'), intent)).toEqual({ action: 'answer', snapshot: at('COMMITTED') });
    expect(refusal(() => decideMarkPublishedAndCommitted(at('RESERVED'), intent))).toBeInstanceOf(InvalidStateError);
    expect(refusal(() => decideMarkPublishedAndCommitted(at('RECORDED'), { ...intent, createdAt: 1n })).message).toBe(
      `markPublishedAndCommitted: ${COMMIT_STEP_TEXTS.otherIntent}`,
    );
    expect(refusal(() => decideMarkPublishedAndCommitted(null, intent))).toBeInstanceOf(NotFoundError);
  });
});
