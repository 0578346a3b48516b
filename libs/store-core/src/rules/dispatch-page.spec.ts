import { FrontierGapError, InvalidInputError } from '../errors/domain-errors';
import { dispatchRecordSamples, USER_A, USER_B } from '../codecs/golden/golden-samples';
import type { DispatchPage, DispatchRecord } from '../model/mailbox';
import { parseId128, type Id128 } from '../model/ids';
import { dispatchDedupeExpiry, dispatchDigest, entriesOfDispatch, pageDecision, planPage, sameDigest } from './dispatch-page';
import { composeMailboxSeq } from './mailbox-seq';

const base = dispatchRecordSamples['one-event']!;
const shardEpoch = { shard: base.shard, epoch: 2 };
const rec = (dispatchId: Id128, patch: Partial<DispatchRecord> = {}): DispatchRecord => ({ ...base, dispatchId, ...patch });
const D1 = parseId128('000000000000000000000000000000d1');
const D2 = parseId128('000000000000000000000000000000d2');
const page = (fromOffset: bigint, toOffset: bigint, records: [bigint, DispatchRecord][]): DispatchPage => ({
  fromOffset,
  toOffset,
  records: records.map(([offset, record]) => ({ offset, record })),
});

describe('planPage', () => {
  it('accepts any start while the frontier is null and splits first sights from in-page repeats', () => {
    const plan = planPage(
      page(40n, 45n, [
        [40n, rec(D1)],
        [42n, rec(D2)],
        [44n, rec(D1)],
      ]),
      shardEpoch,
      null,
    );
    expect(plan.kind).toBe('apply');
    if (plan.kind !== 'apply') return;
    expect(plan.candidates.map((c) => [c.offset, c.record.dispatchId])).toEqual([
      [40n, D1],
      [42n, D2],
    ]);
    expect(plan.repeats.map((r) => [r.offset, r.firstOffset])).toEqual([[44n, 40n]]);
    expect(sameDigest(plan.repeats[0]!.digest, plan.candidates[0]!.digest)).toBe(true);
  });

  it('refuses a page that would skip offsets above the frontier', () => {
    expect(() => planPage(page(12n, 14n, []), shardEpoch, 10n)).toThrow(FrontierGapError);
    expect(() => planPage(page(12n, 14n, []), shardEpoch, 10n)).toThrow(/offsets 11…11 missing/);
  });

  it('answers behind for a page at or below the frontier and apply for one that overlaps it', () => {
    expect(planPage(page(3n, 10n, []), shardEpoch, 10n).kind).toBe('behind');
    expect(planPage(page(3n, 11n, []), shardEpoch, 10n).kind).toBe('apply');
    expect(planPage(page(11n, 11n, []), shardEpoch, 10n).kind).toBe('apply');
  });

  it.each<[string, DispatchPage]>([
    ['an inverted range', page(5n, 4n, [])],
    ['a negative start', page(-1n, 4n, [])],
    ['a record below the range', page(5n, 9n, [[4n, rec(D1)]])],
    ['a record above the range', page(5n, 9n, [[10n, rec(D1)]])],
    [
      'records out of order',
      page(5n, 9n, [
        [7n, rec(D1)],
        [6n, rec(D2)],
      ]),
    ],
    [
      'a repeated offset',
      page(5n, 9n, [
        [7n, rec(D1)],
        [7n, rec(D2)],
      ]),
    ],
    ['a record of another shard', page(5n, 9n, [[7n, rec(D1, { shard: base.shard + 1 })]])],
  ])('refuses %s with InvalidInputError', (_name, p) => {
    expect(() => planPage(p, shardEpoch, null)).toThrow(InvalidInputError);
  });
});

describe('pageDecision (the range part of planPage, for a page planned before its frontier was read)', () => {
  it('decides every range as planPage does, with the same gap error', () => {
    const cases: [bigint, bigint, bigint | null][] = [
      [40n, 45n, null],
      [3n, 10n, 10n],
      [3n, 11n, 10n],
      [11n, 11n, 10n],
      [0n, 0n, null],
    ];
    for (const [from, to, f] of cases)
      expect(pageDecision({ fromOffset: from, toOffset: to }, shardEpoch, f)).toBe(planPage(page(from, to, []), shardEpoch, f).kind);
    expect(() => pageDecision({ fromOffset: 12n, toOffset: 14n }, shardEpoch, 10n)).toThrow(FrontierGapError);
    expect(() => pageDecision({ fromOffset: 12n, toOffset: 14n }, shardEpoch, 10n)).toThrow(/offsets 11…11 missing/);
  });
});

describe('dispatch digest, dedupe expiry and entries', () => {
  it('gives equal digests to equal records and different ones to any other content', () => {
    expect(sameDigest(dispatchDigest(rec(D1)), dispatchDigest(rec(D1)))).toBe(true);
    expect(sameDigest(dispatchDigest(rec(D1)), dispatchDigest(rec(D1, { recipients: [USER_A] })))).toBe(false);
    expect(sameDigest(dispatchDigest(rec(D1)), dispatchDigest(rec(D1, { createdAt: base.createdAt + 1n })))).toBe(false);
    expect(dispatchDigest(rec(D1))).toHaveLength(32);
  });

  it('fixes the dedupe memory from the record, not from the sight', () => {
    expect(dispatchDedupeExpiry(1_000n, 500n)).toBe(1_500n);
  });

  it('puts every recipient at the canonical offset seq', () => {
    const r = rec(D1, { recipients: [USER_A, USER_B] });
    const entries = entriesOfDispatch(r, 2, 41n);
    expect(entries.map((e) => [e.userId, e.mailboxSeq])).toEqual([
      [USER_A, composeMailboxSeq(2, 41n)],
      [USER_B, composeMailboxSeq(2, 41n)],
    ]);
    expect(entries.every((e) => e.events === r.events && e.createdAt === r.createdAt && e.tenantId === r.tenantId)).toBe(true);
  });
});
