import { CorruptEntryError, InvariantViolationError, dispatchDigest } from '@qim/store-core';
import type { DispatchRecord, Id128, InPageRepeat, PageCandidate } from '@qim/store-core';
import type { CanonicalSight, Sight } from './dispatch-index';
import { byOffset, resolveRepeats, resolveSight } from './page-outcomes';

const id = (c: string): Id128 => c.repeat(32) as Id128;
const rec = (dispatchId: Id128, recipients: Id128[] = [id('6')]): DispatchRecord => ({
  dispatchId,
  tenantId: id('1'),
  shard: 3,
  messageId: id('5'),
  conversationId: id('4'),
  seq: 1n,
  createdAt: 1_000n,
  recipients,
  events: [{ ordinal: 0, eventId: id('9'), payload: new Uint8Array([1]) }],
});
const candidate = (offset: bigint, record: DispatchRecord): PageCandidate => ({ offset, record, digest: dispatchDigest(record) });
const sight = (c: PageCandidate, ttl = 100, dedupeExpiry = 1_000_000n): Sight => ({ candidate: c, ttl, dedupeExpiry });
const X = rec(id('a'));
const Xother = rec(id('a'), [id('7')]);
const row = (offset: bigint, record: DispatchRecord): CanonicalSight => ({ offset, digest: candidate(offset, record).digest });
const outcomeOf = (s: Sight, r: CanonicalSight | undefined, now = 0n): [bigint, string, bigint] => {
  const { outcome } = resolveSight(s, r, now, 0n);
  return [outcome.offset, outcome.outcome, outcome.canonicalOffset];
};

describe('resolveSight', () => {
  it('own offset → applied; a lower canonical offset → duplicate (same digest) or conflict (other digest)', () => {
    expect(outcomeOf(sight(candidate(10n, X)), row(10n, X))).toEqual([10n, 'applied', 10n]);
    expect(outcomeOf(sight(candidate(15n, X)), row(10n, X))).toEqual([15n, 'duplicate', 10n]);
    expect(outcomeOf(sight(candidate(15n, Xother)), row(10n, X))).toEqual([15n, 'conflict', 10n]);
    expect(resolveSight(sight(candidate(15n, Xother)), row(10n, X), 0n, 0n).canonical).toEqual(row(10n, X));
  });

  it('a sight whose window is over is applied at its own offset whatever the index says', () => {
    expect(outcomeOf(sight(candidate(20n, X), 0), row(3n, X))).toEqual([20n, 'applied', 20n]);
  });

  it('a just-written row missing (or above) in the read-back is damage unless its window ended meanwhile', () => {
    expect(() => resolveSight(sight(candidate(20n, X), 5, 10_000n), undefined, 5_000n, 0n)).toThrow(CorruptEntryError);
    expect(() => resolveSight(sight(candidate(20n, X), 5, 10_000n), row(25n, X), 5_000n, 0n)).toThrow(CorruptEntryError);
    expect(outcomeOf(sight(candidate(20n, X), 1, 10_000n), undefined, 9_500n)).toEqual([20n, 'applied', 20n]);
  });

  it('another digest stored at the candidate own offset is damage', () => {
    expect(() => resolveSight(sight(candidate(20n, X)), row(20n, Xother), 0n, 0n)).toThrow(CorruptEntryError);
  });
});

describe('resolveRepeats and byOffset', () => {
  it('in-page repeats follow their first sight canonical record; outcomes come out ascending', () => {
    const canonicalOf = new Map<Id128, CanonicalSight>([[X.dispatchId, row(4n, X)]]);
    const repeats: InPageRepeat[] = [
      { ...candidate(13n, Xother), firstOffset: 10n },
      { ...candidate(12n, X), firstOffset: 10n },
    ];
    expect(byOffset(resolveRepeats(repeats, canonicalOf)).map((o) => [o.offset, o.outcome, o.canonicalOffset])).toEqual([
      [12n, 'duplicate', 4n],
      [13n, 'conflict', 4n],
    ]);
    expect(() => resolveRepeats(repeats, new Map())).toThrow(InvariantViolationError);
  });
});
