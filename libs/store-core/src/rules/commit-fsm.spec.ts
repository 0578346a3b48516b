import { InvalidStateError } from '../errors/domain-errors';
import { COMMIT_STATES } from '../model/message';
import type { CommitState } from '../model/message';
import { assertAdvance, canAdvance, commitStateIndex, hasReached, isTerminal, nextCommitState } from './commit-fsm';

describe('commit FSM', () => {
  const allowed = new Set(['RESERVED>RECORDED', 'RECORDED>OUTBOXED', 'OUTBOXED>COMMITTED']);

  it('orders the states RESERVED < RECORDED < OUTBOXED < COMMITTED', () => {
    expect(COMMIT_STATES.map(commitStateIndex)).toEqual([0, 1, 2, 3]);
  });

  it.each(COMMIT_STATES.flatMap((from) => COMMIT_STATES.map((to) => [from, to] as const)))('%s → %s follows the table', (from, to) => {
    const ok = allowed.has(`${from}>${to}`);
    expect(canAdvance(from, to)).toBe(ok);
    if (ok) expect(() => assertAdvance(from, to)).not.toThrow();
    else expect(() => assertAdvance(from, to)).toThrow(InvalidStateError);
  });

  it('only COMMITTED is terminal and has no next state', () => {
    expect(COMMIT_STATES.filter(isTerminal)).toEqual(['COMMITTED']);
    expect(COMMIT_STATES.map(nextCommitState)).toEqual(['RECORDED', 'OUTBOXED', 'COMMITTED', null]);
  });

  it('hasReached is "at or after"', () => {
    expect(hasReached('RECORDED', 'RECORDED')).toBe(true);
    expect(hasReached('COMMITTED', 'RECORDED')).toBe(true);
    expect(hasReached('RESERVED', 'RECORDED')).toBe(false);
  });

  it('rejects an unknown state with InvalidStateError', () => {
    expect(() => commitStateIndex('DONE' as CommitState)).toThrow(InvalidStateError);
  });
});
