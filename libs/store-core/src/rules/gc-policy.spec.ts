import fc from 'fast-check';
import { CorruptEntryError, InvalidStateError, InvariantViolationError } from '../errors/domain-errors';
import type { Id128 } from '../model/ids';
import type { DispatchProgress, LaneWatermark } from '../model/mailbox';
import { gcDeadlineAt, gcEligible, gcRemainingTtlSeconds, MAX_TTL_SECONDS, mustRewriteWithTtl, nextGcPhase, resolveGcDeadline } from './gc-policy';

describe('gcRemainingTtlSeconds', () => {
  it('is the ceiling of the remaining seconds, at least 1', () => {
    expect(gcRemainingTtlSeconds(10_000n, 0n)).toBe(10);
    expect(gcRemainingTtlSeconds(10_001n, 0n)).toBe(11);
    expect(gcRemainingTtlSeconds(10_000n, 9_999n)).toBe(1);
    expect(gcRemainingTtlSeconds(10_000n, 10_000n)).toBe(1);
    expect(gcRemainingTtlSeconds(10_000n, 99_000n)).toBe(1);
  });
  it('never extends past the fixed deadline and shrinks as time passes', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 11n }), fc.bigInt({ min: 0n, max: 10n ** 11n }), fc.bigInt({ min: 0n, max: 10n ** 6n }), (deadline, now, step) => {
        const ttl = gcRemainingTtlSeconds(deadline, now);
        expect(ttl).toBeGreaterThanOrEqual(1);
        if (deadline > now) expect(now + BigInt(ttl) * 1000n - deadline < 1000n).toBe(true);
        expect(gcRemainingTtlSeconds(deadline, now + step)).toBeLessThanOrEqual(ttl);
      }),
    );
  });
  it('refuses a TTL beyond what a CQL server accepts', () => {
    expect(gcRemainingTtlSeconds(BigInt(MAX_TTL_SECONDS) * 1000n, 0n)).toBe(MAX_TTL_SECONDS);
    expect(() => gcRemainingTtlSeconds(BigInt(MAX_TTL_SECONDS) * 1000n + 1n, 0n)).toThrow(InvariantViolationError);
  });
});

describe('mustRewriteWithTtl: a positive TTL is never renewed', () => {
  it('rewrites only rows without a TTL', () => {
    expect(mustRewriteWithTtl(null)).toBe(true);
    expect(mustRewriteWithTtl(0)).toBe(true);
    expect(mustRewriteWithTtl(1)).toBe(false);
    expect(mustRewriteWithTtl(86_400)).toBe(false);
    expect(() => mustRewriteWithTtl(-1)).toThrow(InvariantViolationError);
    expect(() => mustRewriteWithTtl(1.5)).toThrow(InvariantViolationError);
  });
});

describe('gcEligible', () => {
  const id = '0000000000000000000000000000000a' as Id128;
  const progress = (p: Partial<DispatchProgress>): DispatchProgress => ({
    receipt: { dispatchId: id, canonicalOffset: 5n, mailboxSeq: 6n, digest: new Uint8Array(32) },
    manifest: { dispatchId: id, tenantId: id, chunkSize: 1, lanes: [] },
    maxObservedOffset: 8n,
    lastSeenAt: 1_000n,
    completedAt: 900n,
    completedChunks: [],
    gcDeadline: null,
    gcPhase: null,
    ...p,
  });
  const lanes = (w: bigint | null, floor: bigint | null, count = 64): LaneWatermark[] => Array.from({ length: count }, (_, lane) => ({ lane, w, floor }));

  it('requires completion, lastSeenAt ≤ cutoff and every lane’s W and floor past maxObservedOffset', () => {
    expect(gcEligible(progress({}), lanes(8n, 8n), 1_000n)).toBe(true);
    expect(gcEligible(progress({}), lanes(9n, 8n), 5_000n)).toBe(true);
    expect(gcEligible(progress({ completedAt: null }), lanes(8n, 8n), 1_000n)).toBe(false);
    expect(gcEligible(progress({}), lanes(8n, 8n), 999n)).toBe(false);
    expect(gcEligible(progress({}), lanes(7n, 7n), 1_000n)).toBe(false);
    expect(gcEligible(progress({}), lanes(9n, 7n), 1_000n)).toBe(false);
    expect(gcEligible(progress({}), lanes(null, null), 1_000n)).toBe(false);
    expect(gcEligible(progress({}), lanes(9n, null), 1_000n)).toBe(false);
    expect(gcEligible(progress({}), lanes(9n, 9n, 63), 1_000n)).toBe(false);
    const oneBehind = lanes(9n, 9n).map((l) => (l.lane === 41 ? { ...l, floor: 2n } : l));
    expect(gcEligible(progress({}), oneBehind, 1_000n)).toBe(false);
  });
});

describe('deadline and phases', () => {
  it('fixes one deadline; resolves its two copies; refuses disagreement', () => {
    expect(gcDeadlineAt(1_000n, 60_000n)).toBe(61_000n);
    expect(() => gcDeadlineAt(2n ** 63n - 1n, 1n)).toThrow(InvariantViolationError);
    expect(resolveGcDeadline(null, null)).toBeNull();
    expect(resolveGcDeadline(5n, null)).toBe(5n);
    expect(resolveGcDeadline(null, 5n)).toBe(5n);
    expect(resolveGcDeadline(5n, 5n)).toBe(5n);
    expect(() => resolveGcDeadline(5n, 6n)).toThrow(CorruptEntryError);
  });
  it('phases go null → 1 → 2 and no further', () => {
    expect(nextGcPhase(null)).toBe(1);
    expect(nextGcPhase(1)).toBe(2);
    expect(() => nextGcPhase(2)).toThrow(InvalidStateError);
  });
});
