import { CorruptEntryError, InvariantViolationError, planPage } from '@qim/store-core';
import type { DispatchPage, DispatchRecord, Id128, PagePlan } from '@qim/store-core';
import { pageOutcomes } from './page-outcomes';

const id = (c: string): Id128 => c.repeat(32) as Id128;
const rec = (dispatchId: Id128, seq = 1n): DispatchRecord => ({
  dispatchId,
  tenantId: id('a'),
  shard: 2,
  messageId: id('b'),
  conversationId: id('c'),
  seq,
  createdAt: 1_700_000_000_000n,
  recipients: [id('1')],
  events: [{ ordinal: 0, eventId: id('e'), payload: Buffer.from('x') }],
});
const planOf = (records: [bigint, DispatchRecord][]): Extract<PagePlan, { kind: 'apply' }> => {
  const page: DispatchPage = { fromOffset: 10n, toOffset: 20n, records: records.map(([offset, record]) => ({ offset, record })) };
  const plan = planPage(page, { shard: 2, epoch: 1 }, null);
  if (plan.kind !== 'apply') throw new Error('apply expected');
  return plan;
};

describe('pageOutcomes', () => {
  const [d1, d2] = [id('d'), id('f')];
  const plan = planOf([
    [10n, rec(d1)],
    [12n, rec(d2)],
    [14n, rec(d1)],
    [16n, rec(d1, 9n)],
  ]);
  const [c1, c2] = plan.candidates;

  it('own sight → applied; an earlier sight with the same digest → duplicate; other content → conflict; repeats follow their id', () => {
    const out = pageOutcomes(plan, [
      { offset: 10n, digest: c1!.digest },
      { offset: 3n, digest: c2!.digest },
    ]);
    expect(out.applied.map((c) => c.offset)).toEqual([10n]);
    expect(out.outcomes.map((o) => [o.offset, o.outcome, o.canonicalOffset])).toEqual([
      [10n, 'applied', 10n],
      [12n, 'duplicate', 3n],
      [14n, 'duplicate', 10n],
      [16n, 'conflict', 10n],
    ]);
  });

  it('an earlier sight with another digest makes the candidate a conflict; nothing of it is applied', () => {
    const out = pageOutcomes(plan, [
      { offset: 10n, digest: c1!.digest },
      { offset: 3n, digest: Buffer.alloc(32) },
    ]);
    expect(out.outcomes[1]).toMatchObject({ offset: 12n, outcome: 'conflict', canonicalOffset: 3n });
    expect(out.applied).toHaveLength(1);
  });

  it("a sight at the candidate's own offset with another digest is damage and fails closed (one offset carries one record)", () => {
    expect(() =>
      pageOutcomes(plan, [
        { offset: 10n, digest: Buffer.alloc(32) },
        { offset: 12n, digest: c2!.digest },
      ]),
    ).toThrow(CorruptEntryError);
  });

  it('an index answer that cannot come out of the script is an invariant violation', () => {
    expect(() => pageOutcomes(plan, [{ offset: 10n, digest: c1!.digest }])).toThrow(InvariantViolationError);
    expect(() =>
      pageOutcomes(plan, [
        { offset: 11n, digest: c1!.digest },
        { offset: 12n, digest: c2!.digest },
      ]),
    ).toThrow(InvariantViolationError);
  });
});
