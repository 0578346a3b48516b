import { CorruptEntryError, InvariantViolationError, applyInspect } from '@qim/store-core';
import type { BucketProof, RetentionMeta } from '@qim/store-core';
import { appendWithProofs, proofsToRead } from './append-rule';

const meta = (ledger: RetentionMeta['ledger'], over: Partial<RetentionMeta> = {}): RetentionMeta => ({
  version: 4,
  generation: 7n,
  inspectedThrough: null,
  gap: null,
  ledger,
  ...over,
});
const proofs = (...p: BucketProof[]): Map<number, BucketProof> => new Map(p.map((x) => [x.day, x]));

describe('appendWithProofs', () => {
  it('consumes an expired day at its proof max seq (above the ledger item), then registers the new day — exactly one generation step', () => {
    const m = meta([{ day: 10, maxSeq: 20n, expiresAt: 1_000n }]);
    const out = appendWithProofs(m, { day: 12, seq: 50n, expiresAt: 9_000n }, 1_000n, proofs({ day: 10, maxSeq: 40n, expiresAt: 1_000n }));
    expect(out).toEqual({
      changed: true,
      expiredReplay: false,
      meta: meta([{ day: 12, maxSeq: 50n, expiresAt: 9_000n }], { generation: 8n, gap: 40n, inspectedThrough: 10 }),
    });
  });

  it('agrees with the reader-side inspection on what an expired day contributes', () => {
    const m = meta([
      { day: 10, maxSeq: 20n, expiresAt: 1_000n },
      { day: 11, maxSeq: 30n, expiresAt: 5_000n },
    ]);
    const p = proofs({ day: 10, maxSeq: 25n, expiresAt: 1_000n });
    const out = appendWithProofs(m, { day: 11, seq: 31n, expiresAt: 5_000n }, 2_000n, p);
    const inspected = applyInspect(m, 2_000n, p);
    expect([out.meta.gap, out.meta.inspectedThrough]).toEqual([inspected.gap, inspected.inspectedThrough]);
    expect(out.meta.ledger).toEqual([{ day: 11, maxSeq: 31n, expiresAt: 5_000n }]);
  });

  it('keeps an expired day whose proof is missing or below its item (the reader reports it) and still registers today', () => {
    const m = meta([
      { day: 9, maxSeq: 15n, expiresAt: 900n },
      { day: 10, maxSeq: 20n, expiresAt: 1_000n },
    ]);
    const out = appendWithProofs(m, { day: 12, seq: 50n, expiresAt: 9_000n }, 1_000n, proofs({ day: 10, maxSeq: 19n, expiresAt: 1_000n }));
    expect(out.meta.ledger.map((i) => i.day)).toEqual([9, 10, 12]);
    expect(out.meta.gap).toBeNull();
    expect(() => applyInspect(out.meta, 1_000n, new Map())).toThrow(CorruptEntryError);
  });

  it('an entry already expired, of a consumed day, or of a kept damaged day is an expired replay: its seq joins the gap, nothing is registered', () => {
    const base = meta([{ day: 10, maxSeq: 20n, expiresAt: 1_000n }], { inspectedThrough: 8, gap: 5n });
    expect(appendWithProofs(base, { day: 10, seq: 21n, expiresAt: 1_000n }, 1_000n, new Map())).toMatchObject({
      expiredReplay: true,
      meta: { gap: 21n, ledger: base.ledger },
    });
    expect(appendWithProofs(base, { day: 7, seq: 9n, expiresAt: 5_000n }, 500n, new Map())).toMatchObject({ expiredReplay: true, meta: { gap: 9n } });
    const damaged = appendWithProofs(base, { day: 10, seq: 22n, expiresAt: 8_000n }, 1_000n, new Map());
    expect(damaged).toMatchObject({ expiredReplay: true, meta: { gap: 22n, ledger: base.ledger } });
  });

  it('a replay of a registered day below its item changes nothing (no meta write); a first user gets a first meta', () => {
    const m = meta([{ day: 10, maxSeq: 20n, expiresAt: 9_000n }]);
    expect(appendWithProofs(m, { day: 10, seq: 18n, expiresAt: 9_000n }, 1_000n, new Map())).toEqual({ meta: m, expiredReplay: false, changed: false });
    expect(appendWithProofs(null, { day: 10, seq: 18n, expiresAt: 9_000n }, 1_000n, new Map())).toMatchObject({
      changed: true,
      meta: { generation: 1n, ledger: [{ day: 10, maxSeq: 18n }] },
    });
  });

  it('refuses a seq with bit 63 set', () => {
    expect(() => appendWithProofs(null, { day: 1, seq: 1n << 63n, expiresAt: 5n }, 1n, new Map())).toThrow(InvariantViolationError);
  });
});

describe('proofsToRead', () => {
  it('asks for the day of every expired item (its proof rows of every epoch are read)', () => {
    const m = meta([
      { day: 9, maxSeq: (2n << 47n) | 3n, expiresAt: 900n },
      { day: 10, maxSeq: (3n << 47n) | 4n, expiresAt: 5_000n },
    ]);
    expect(proofsToRead(m, 1_000n)).toEqual([9]);
    expect(proofsToRead(null, 1_000n)).toEqual([]);
  });
});
