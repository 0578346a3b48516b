import { batchAnswers, commitBatchCall } from './script-batch';

describe('commit-batch arguments and answers (ADR-0039)', () => {
  it('lays the calls out in order: keys concatenated, per call name, key count, arg count and args', () => {
    const call = commitBatchCall([
      { script: 'claimCommitV1', keys: ['{cs:1}:a', '{cs:1}:b', '{cs:1}:c'], args: ['x', Buffer.from([0, 255])] },
      { script: 'markCommittedV1', keys: ['{cs:2}:a', '{cs:2}:b'], args: ['y'] },
    ]);
    expect(call.script).toBe('commitBatchV1');
    expect(call.keys).toEqual(['{cs:1}:a', '{cs:1}:b', '{cs:1}:c', '{cs:2}:a', '{cs:2}:b']);
    expect(call.args).toEqual(['2', 'claimCommitV1', '3', '2', 'x', Buffer.from([0, 255]), 'markCommittedV1', '2', '1', 'y']);
  });

  it("answers each call with its own reply, an {'error', message} element as that call's error", () => {
    const ok = [0, Buffer.from('intent')];
    expect(batchAnswers([ok, [Buffer.from('error'), Buffer.from('WRONGTYPE Operation')], [-1]], 3)).toEqual([
      { ok: true, reply: ok },
      { ok: false, message: 'WRONGTYPE Operation' },
      { ok: true, reply: [-1] },
    ]);
  });

  it('a reply of another shape (not an array, or another count of answers) is refused as a whole', () => {
    expect(batchAnswers('OK', 1)).toBeNull();
    expect(batchAnswers([[0]], 2)).toBeNull();
  });
});
