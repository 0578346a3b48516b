import fc from 'fast-check';
import type { LedgerItem } from '../codecs/active-ledger';
import { CorruptEntryError, CursorExpiredError, InvariantViolationError } from '../errors/domain-errors';
import type { BucketProof } from './retention-ledger';
import { checkCursor, DAY_MS, dayOf, entryExpiry, mergeBucketProof } from './retention-ledger';
import { applyAppend, applyInspect, checkRetentionMeta, emptyRetentionMeta, expiredLedgerDays, retentionMetasEqual } from './retention-meta';
import type { RetentionMeta } from './retention-meta';

const R = DAY_MS; // one day of retention after the end of the creation day
const at = (day: number, hour = 0): bigint => BigInt(day) * DAY_MS + BigInt(hour) * 3_600_000n;
const fact = (createdAt: bigint, seq: bigint): { day: number; seq: bigint; expiresAt: bigint } => ({
  day: dayOf(createdAt),
  seq,
  expiresAt: entryExpiry(createdAt, R),
});
const proofsOf = (...ps: BucketProof[]): Map<number, BucketProof> => new Map(ps.map((p) => [p.day, p]));

describe('applyAppend', () => {
  it('first append registers the day and starts at generation 1', () => {
    const out = applyAppend(null, fact(at(10, 5), 7n), at(10, 6));
    expect(out).toEqual({
      meta: { version: 4, generation: 1n, inspectedThrough: null, gap: null, ledger: [{ day: 10, maxSeq: 7n, expiresAt: at(12) }] },
      expiredReplay: false,
      changed: true,
    });
  });

  it('a replay changes nothing (no renewal, no generation bump); a higher seq raises the day', () => {
    const m1 = applyAppend(null, fact(at(10, 5), 7n), at(10, 6)).meta;
    const replay = applyAppend(m1, fact(at(10, 5), 7n), at(10, 9));
    expect(replay.changed).toBe(false);
    expect(replay.meta).toBe(m1);
    const lower = applyAppend(m1, fact(at(10, 1), 3n), at(10, 9));
    expect(lower.meta).toBe(m1);
    const raised = applyAppend(m1, fact(at(10, 8), 9n), at(10, 9));
    expect(raised.meta.generation).toBe(2n);
    expect(raised.meta.ledger).toEqual([{ day: 10, maxSeq: 9n, expiresAt: at(12) }]);
  });

  it('an already expired entry is an expired replay: gap merged, nothing registered, trim untouched', () => {
    const m1 = applyAppend(null, fact(at(20), 50n), at(20, 1)).meta;
    const out = applyAppend(m1, fact(at(10), 90n), at(20, 2));
    expect(out.expiredReplay).toBe(true);
    expect(out.meta.gap).toBe(90n);
    expect(out.meta.ledger).toEqual(m1.ledger);
    expect(out.meta.generation).toBe(2n);
    expect(Object.keys(out.meta)).not.toContain('trim');
  });

  it('consumes expired ledger days into the gap before registering today', () => {
    let m = applyAppend(null, fact(at(1), 5n), at(1)).meta;
    m = applyAppend(m, fact(at(2), 8n), at(2)).meta;
    const out = applyAppend(m, fact(at(3, 1), 9n), at(3, 1));
    expect(out.meta.gap).toBe(5n);
    expect(out.meta.inspectedThrough).toBe(1);
    expect(out.meta.ledger.map((i) => i.day)).toEqual([2, 3]);
  });

  it('a live-looking entry on an already consumed day adds its seq to the gap instead (clock skew / changed retention)', () => {
    const m: RetentionMeta = { version: 4, generation: 4n, inspectedThrough: 8, gap: 3n, ledger: [] };
    const out = applyAppend(m, { day: 7, seq: 40n, expiresAt: at(100) }, at(9));
    expect(out).toMatchObject({ expiredReplay: true, meta: { gap: 40n, ledger: [], generation: 5n } });
    const liveDay: RetentionMeta = { ...m, ledger: [{ day: 7, maxSeq: 1n, expiresAt: at(100) }] };
    expect(applyAppend(liveDay, { day: 7, seq: 40n, expiresAt: at(100) }, at(9)).expiredReplay).toBe(false);
  });

  it('refuses a 33rd live day', () => {
    const ledger: LedgerItem[] = Array.from({ length: 32 }, (_, d) => ({ day: d, maxSeq: 1n, expiresAt: at(1000) }));
    const m: RetentionMeta = { ...emptyRetentionMeta(), ledger };
    expect(() => applyAppend(m, { day: 40, seq: 2n, expiresAt: at(1000) }, at(40))).toThrow(InvariantViolationError);
    expect(() => applyAppend(m, { day: 40, seq: -2n, expiresAt: at(1000) }, at(40))).toThrow(InvariantViolationError);
  });
});

describe('applyInspect and the V4 gap vectors', () => {
  // Seq and created_at are not monotonic to each other: seq 100 was created on day 10, seq 50 on day 12.
  const high = fact(at(10, 3), 100n);
  const low = fact(at(12, 3), 50n);
  const meta = applyAppend(applyAppend(null, high, at(10, 4)).meta, low, at(11, 0)).meta;
  const now = at(12, 5); // day 10 expired at day 12 00:00; day 12 lives until day 14
  const trim = 10n;

  it('expired high-seq bucket beside a live low-seq bucket → CursorExpired below the high seq, trim unchanged', () => {
    expect(expiredLedgerDays(meta, now)).toEqual([10]);
    const inspected = applyInspect(meta, now, proofsOf({ day: 10, maxSeq: 100n, expiresAt: high.expiresAt }));
    expect(inspected.gap).toBe(100n);
    expect(inspected.ledger).toEqual([{ day: 12, maxSeq: 50n, expiresAt: low.expiresAt }]);
    expect(inspected.inspectedThrough).toBe(10);
    expect(inspected.generation).toBe(meta.generation + 1n);
    expect(() => checkCursor(40n, trim, inspected.gap)).toThrow(CursorExpiredError);
    expect(() => checkCursor(99n, trim, inspected.gap)).toThrow(CursorExpiredError);
    expect(() => checkCursor(100n, trim, inspected.gap)).not.toThrow();
    expect(trim).toBe(10n);
  });

  it('merges the proof’s real max seq when it is above the ledger item', () => {
    const inspected = applyInspect(meta, now, proofsOf({ day: 10, maxSeq: 130n, expiresAt: high.expiresAt }));
    expect(inspected.gap).toBe(130n);
  });

  it('a missing or lower bucket proof is CorruptEntry and changes nothing', () => {
    expect(() => applyInspect(meta, now, proofsOf())).toThrow(CorruptEntryError);
    expect(() => applyInspect(meta, now, proofsOf({ day: 12, maxSeq: 500n, expiresAt: 0n }))).toThrow(CorruptEntryError);
    expect(() => applyInspect(meta, now, proofsOf({ day: 10, maxSeq: 99n, expiresAt: high.expiresAt }))).toThrow(CorruptEntryError);
  });

  it('nothing expired → the same meta object (no write)', () => {
    expect(applyInspect(meta, at(11), proofsOf())).toBe(meta);
  });

  it('generation linearises a concurrent append and inspect (conditional write on the whole meta)', () => {
    let stored = meta;
    const cas = (expected: RetentionMeta, next: RetentionMeta): boolean => {
      if (!retentionMetasEqual(stored, expected)) return false;
      stored = next;
      return true;
    };
    const proofs = proofsOf({ day: 10, maxSeq: 100n, expiresAt: high.expiresAt });
    const readByInspect = stored;
    const readByAppend = stored;
    expect(cas(readByAppend, applyAppend(readByAppend, fact(at(12, 4), 60n), now).meta)).toBe(true);
    expect(cas(readByInspect, applyInspect(readByInspect, now, proofs))).toBe(false);
    expect(cas(stored, applyInspect(stored, now, proofs))).toBe(true);
    expect(stored.gap).toBe(100n);
    expect(stored.ledger).toEqual([{ day: 12, maxSeq: 60n, expiresAt: low.expiresAt }]);
    expect(stored.generation).toBe(meta.generation + 1n);
  });
});

describe('checkRetentionMeta', () => {
  const good: RetentionMeta = { version: 4, generation: 3n, inspectedThrough: 2, gap: 5n, ledger: [{ day: 3, maxSeq: 1n, expiresAt: 9n }] };
  it('accepts v4 and refuses older versions and damage', () => {
    expect(checkRetentionMeta(good)).toBe(good);
    expect(() => checkRetentionMeta({ ...good, version: 3 })).toThrow(CorruptEntryError);
    expect(() => checkRetentionMeta({ ...good, generation: -1n })).toThrow(CorruptEntryError);
    expect(() => checkRetentionMeta({ ...good, gap: -5n })).toThrow(CorruptEntryError);
    expect(() => checkRetentionMeta({ ...good, inspectedThrough: -1 })).toThrow(CorruptEntryError);
    expect(() => checkRetentionMeta({ ...good, ledger: [...good.ledger, ...good.ledger] })).toThrow(CorruptEntryError);
    const many = Array.from({ length: 33 }, (_, d) => ({ day: d, maxSeq: 1n, expiresAt: 1n }));
    expect(() => checkRetentionMeta({ ...good, ledger: many })).toThrow(CorruptEntryError);
  });
  it('retentionMetasEqual compares every field', () => {
    expect(retentionMetasEqual(good, { ...good, ledger: [{ day: 3, maxSeq: 1n, expiresAt: 9n }] })).toBe(true);
    expect(retentionMetasEqual(good, { ...good, generation: 4n })).toBe(false);
    expect(retentionMetasEqual(good, { ...good, ledger: [{ day: 3, maxSeq: 2n, expiresAt: 9n }] })).toBe(false);
  });
});

describe('model property: no silent hole, bounded ledger', () => {
  type Op = { t: 'append'; back: number; hour: number; seq: bigint } | { t: 'wait'; ms: bigint } | { t: 'inspect' };
  const opArb: fc.Arbitrary<Op> = fc.oneof(
    fc.record({
      t: fc.constant('append' as const),
      back: fc.integer({ min: 0, max: 4 }),
      hour: fc.integer({ min: 0, max: 23 }),
      seq: fc.bigInt({ min: 1n, max: 1000n }),
    }),
    fc.record({ t: fc.constant('wait' as const), ms: fc.bigInt({ min: 0n, max: 2n * DAY_MS }) }),
    fc.constant<Op>({ t: 'inspect' }),
  );

  it('every expired live-written seq is ≤ gap after an inspect; proofs ≥ ledger; ≤ 32 items; generation grows', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 80 }), (ops) => {
        let now = at(100);
        let meta: RetentionMeta | null = null;
        const proofs = new Map<number, BucketProof>();
        const written: { seq: bigint; expiresAt: bigint }[] = [];
        const check = (): void => {
          if (meta === null) return;
          meta = applyInspect(meta, now, proofs);
          for (const w of written) if (w.expiresAt <= now) expect(meta.gap !== null && meta.gap >= w.seq).toBe(true);
          expect(meta.ledger.length).toBeLessThanOrEqual(32);
          for (const i of meta.ledger) expect(proofs.get(i.day)!.maxSeq >= i.maxSeq).toBe(true);
        };
        for (const op of ops) {
          if (op.t === 'wait') now += op.ms;
          else if (op.t === 'inspect') check();
          else {
            const createdAt = now - BigInt(op.back) * DAY_MS - BigInt(op.hour) * 3_600_000n;
            const f = fact(createdAt, op.seq);
            proofs.set(f.day, mergeBucketProof(proofs.get(f.day) ?? null, f.day, f.seq, f.expiresAt));
            const before: bigint = meta?.generation ?? 0n;
            const out = applyAppend(meta, f, now);
            if (out.changed) expect(out.meta.generation).toBe(before + 1n);
            if (out.expiredReplay) expect(out.meta.gap! >= f.seq).toBe(true);
            else written.push({ seq: f.seq, expiresAt: f.expiresAt });
            meta = out.meta;
          }
        }
        now += 10n * DAY_MS;
        check();
      }),
    );
  });
});
