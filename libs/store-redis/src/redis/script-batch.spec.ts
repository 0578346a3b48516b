import { BATCH_FLUSH_CALLS, ScriptBatcher, batchAnswers, commitBatchCall } from './script-batch';
import type { ScriptCall } from './redis-io';

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

describe('ScriptBatcher: when a batch goes', () => {
  const call = (i: number): ScriptCall => ({ script: 'markCommittedV1', keys: [`{cs:${i}}:a`, `{cs:${i}}:b`], args: [String(i)] });
  function batcher(): { sent: string[][]; add(i: number): Promise<unknown> } {
    const sent: string[][] = [];
    const b = new ScriptBatcher(
      async (calls) => {
        sent.push(calls.map((c) => String(c.args[0])));
        return calls.map((c) => ({ ok: true, reply: c.args[0] }));
      },
      (e) => e,
    );
    return { sent, add: (i) => b.add(call(i)) };
  }
  const turnEnd = (): Promise<void> => new Promise((r) => setImmediate(r));

  it('a turn with fewer calls than a full batch sends them together at its end, in order', async () => {
    const b = batcher();
    const replies = [1, 2, 3].map((i) => b.add(i));
    expect(b.sent).toEqual([]);
    await turnEnd();
    expect(b.sent).toEqual([['1', '2', '3']]);
    expect(await Promise.all(replies)).toEqual(['1', '2', '3']);
  });

  it('a full batch goes at once, while the turn is still making calls (the server works on it meanwhile); the rest at the turn end', async () => {
    const b = batcher();
    const n = BATCH_FLUSH_CALLS * 2 + 3;
    const replies = Array.from({ length: n }, (_, i) => b.add(i));
    const ids = (from: number, to: number): string[] => Array.from({ length: to - from }, (_, i) => String(from + i));
    expect(b.sent).toEqual([ids(0, BATCH_FLUSH_CALLS), ids(BATCH_FLUSH_CALLS, 2 * BATCH_FLUSH_CALLS)]);
    await turnEnd();
    expect(b.sent).toEqual([ids(0, BATCH_FLUSH_CALLS), ids(BATCH_FLUSH_CALLS, 2 * BATCH_FLUSH_CALLS), ids(2 * BATCH_FLUSH_CALLS, n)]);
    expect(await Promise.all(replies)).toEqual(ids(0, n));
  });
});
