import { dispatchRecordSamples, USER_A } from '../codecs/golden/golden-samples';
import { CorruptEntryError } from '../errors/domain-errors';
import type { Id128 } from '../model/ids';
import type { DispatchPage, DispatchRecord } from '../model/mailbox';
import { dispatchDigest, planPage, resolvePage } from './dispatch-page';
import type { ApplyPlan, IndexedDispatch } from './dispatch-page';

const base = dispatchRecordSamples['one-event']!;
const shardEpoch = { shard: base.shard, epoch: 2 };
const D1 = '000000000000000000000000000000d1' as Id128;
const D2 = '000000000000000000000000000000d2' as Id128;
const rec = (dispatchId: Id128, patch: Partial<DispatchRecord> = {}): DispatchRecord => ({ ...base, dispatchId, ...patch });
const other = rec(D1, { recipients: [USER_A] });

function plan(records: [bigint, DispatchRecord][]): ApplyPlan {
  const page: DispatchPage = { fromOffset: 10n, toOffset: 19n, records: records.map(([offset, record]) => ({ offset, record })) };
  const p = planPage(page, shardEpoch, null);
  if (p.kind !== 'apply') throw new Error('expected an apply plan');
  return p;
}
const row = (offset: bigint, r: DispatchRecord): IndexedDispatch => ({ offset, digest: dispatchDigest(r) });

describe('resolvePage', () => {
  it('applies first sights whose index row is their own (or absent) and answers in offset order', () => {
    const p = plan([
      [11n, rec(D2)],
      [12n, rec(D1)],
    ]);
    const { outcomes, applied } = resolvePage(p, new Map([[D1, row(12n, rec(D1))]]));
    expect(outcomes.map((o) => [o.offset, o.outcome, o.canonicalOffset])).toEqual([
      [11n, 'applied', 11n],
      [12n, 'applied', 12n],
    ]);
    expect(applied.map((c) => c.offset)).toEqual([11n, 12n]);
  });

  it('a lower canonical offset makes a duplicate (same digest) or a conflict (other digest); repeats follow the canonical sight', () => {
    const p = plan([
      [12n, other],
      [14n, rec(D1)],
      [16n, other],
    ]);
    const { outcomes, applied } = resolvePage(p, new Map([[D1, row(3n, rec(D1))]]));
    expect(outcomes.map((o) => [o.offset, o.outcome, o.canonicalOffset])).toEqual([
      [12n, 'conflict', 3n],
      [14n, 'duplicate', 3n],
      [16n, 'conflict', 3n],
    ]);
    expect(applied).toEqual([]);
  });

  it('a row naming a higher offset (its memory outlived the canonical one) leaves the own sight applied', () => {
    const { outcomes } = resolvePage(
      plan([
        [12n, rec(D1)],
        [13n, other],
      ]),
      new Map([[D1, row(15n, other)]]),
    );
    expect(outcomes.map((o) => [o.offset, o.outcome, o.canonicalOffset])).toEqual([
      [12n, 'applied', 12n],
      [13n, 'conflict', 12n],
    ]);
  });

  it('a row at the own offset with another digest is damage', () => {
    expect(() => resolvePage(plan([[12n, rec(D1)]]), new Map([[D1, row(12n, other)]]))).toThrow(CorruptEntryError);
  });
});
