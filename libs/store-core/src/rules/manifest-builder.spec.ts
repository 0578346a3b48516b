import fc from 'fast-check';
import { idArb } from '../codecs/test-support/arbitraries';
import { InvalidInputError } from '../errors/domain-errors';
import type { Id128 } from '../model/ids';
import { LANE_COUNT } from '../model/mailbox';
import type { DispatchManifest } from '../model/mailbox';
import { buildManifest, declaredChunk, isCanonicalManifest, manifestRecipients, manifestsEqual } from './manifest-builder';
import { laneOf } from './sharding';

const T = '0000000000000000000000000000000a' as Id128;
const DID = '000000000000000000000000000000dd' as Id128;
const uid = (n: number): Id128 => n.toString(16).padStart(32, '0') as Id128;
const build = (recipients: readonly Id128[], chunkSize: number): DispatchManifest => buildManifest({ dispatchId: DID, tenantId: T, recipients, chunkSize });

describe('buildManifest', () => {
  it('has exactly 64 lanes in index order, each user in its laneOf lane, sorted, chunked ≤ chunkSize', () => {
    fc.assert(
      fc.property(fc.array(idArb, { maxLength: 200 }), fc.integer({ min: 1, max: 7 }), (recipients, chunkSize) => {
        const m = build(recipients, chunkSize);
        expect(m.lanes).toHaveLength(LANE_COUNT);
        m.lanes.forEach((l, i) => {
          expect(l.lane).toBe(i);
          const users = l.chunks.flatMap((c) => c.users);
          expect(users).toEqual([...new Set(users)].sort());
          users.forEach((u) => expect(laneOf(T, u)).toBe(i));
          l.chunks.forEach((c, j) => {
            expect(c.chunkId).toBe(j);
            expect(c.users.length).toBeGreaterThan(0);
            if (j < l.chunks.length - 1) expect(c.users).toHaveLength(chunkSize);
            else expect(c.users.length).toBeLessThanOrEqual(chunkSize);
          });
        });
        expect(manifestRecipients(m)).toEqual([...new Set(recipients)].sort());
        expect(isCanonicalManifest(m)).toBe(true);
      }),
      { numRuns: 40 },
    );
  });

  it('is deterministic: input order and duplicates are irrelevant', () => {
    fc.assert(
      fc.property(fc.array(idArb, { maxLength: 100 }), fc.integer({ min: 1, max: 5 }), (recipients, chunkSize) => {
        const shuffled = [...recipients, ...recipients.slice(0, 3)].reverse();
        const a = build(recipients, chunkSize);
        const b = build(shuffled, chunkSize);
        expect(b).toEqual(a);
        expect(manifestsEqual(a, b)).toBe(true);
      }),
      { numRuns: 40 },
    );
  });

  it('an empty recipient set still yields 64 lanes without chunks', () => {
    const m = build([], 10);
    expect(m.lanes).toHaveLength(64);
    expect(m.lanes.every((l) => l.chunks.length === 0)).toBe(true);
  });

  it('rejects an invalid chunk size or recipient', () => {
    for (const n of [0, -1, 2.5, 2 ** 20 + 1]) expect(() => build([uid(1)], n)).toThrow(InvalidInputError);
    expect(() => build(['nope' as Id128], 1)).toThrow(InvalidInputError);
  });
});

describe('declaredChunk', () => {
  const users = Array.from({ length: 400 }, (_, i) => uid(i + 1));
  const m = build(users, 3);
  const lane = m.lanes.findIndex((l) => l.chunks.length >= 2);

  it('returns declared chunks and null for anything else', () => {
    expect(declaredChunk(m, lane, 0)).toBe(m.lanes[lane]!.chunks[0]);
    expect(declaredChunk(m, lane, 1)).toBe(m.lanes[lane]!.chunks[1]);
    expect(declaredChunk(m, lane, m.lanes[lane]!.chunks.length)).toBeNull();
    expect(declaredChunk(m, lane, -1)).toBeNull();
    expect(declaredChunk(m, 64, 0)).toBeNull();
    expect(declaredChunk(m, -1, 0)).toBeNull();
    expect(declaredChunk(m, 0.5, 0)).toBeNull();
  });
});

describe('manifestsEqual / isCanonicalManifest', () => {
  const m = build([uid(1), uid(2), uid(3), uid(4), uid(5)], 1);
  const lane = m.lanes.findIndex((l) => l.chunks.length > 0);

  it('detects every kind of difference', () => {
    const l = m.lanes[lane]!;
    const withLane = (patch: object): DispatchManifest => ({ ...m, lanes: m.lanes.map((x, i) => (i === lane ? { ...x, ...patch } : x)) });
    expect(manifestsEqual(m, { ...m, chunkSize: 2 })).toBe(false);
    expect(manifestsEqual(m, { ...m, dispatchId: uid(9) })).toBe(false);
    expect(manifestsEqual(m, { ...m, tenantId: uid(9) })).toBe(false);
    expect(manifestsEqual(m, { ...m, lanes: m.lanes.slice(1) })).toBe(false);
    expect(manifestsEqual(m, withLane({ lane: 99 }))).toBe(false);
    expect(manifestsEqual(m, withLane({ chunks: [] }))).toBe(false);
    expect(manifestsEqual(m, withLane({ chunks: [{ chunkId: 5, users: l.chunks[0]!.users }] }))).toBe(false);
    expect(manifestsEqual(m, withLane({ chunks: [{ chunkId: 0, users: [uid(77)] }] }))).toBe(false);
    expect(manifestsEqual(m, withLane({ chunks: [{ chunkId: 0, users: [] }] }))).toBe(false);
  });

  it('refuses a hand-made manifest (user in the wrong lane, bad chunking, bad chunk size)', () => {
    const wrongLane = (lane + 1) % 64;
    const moved: DispatchManifest = {
      ...m,
      lanes: m.lanes.map((x, i) => (i === lane ? { lane, chunks: [] } : i === wrongLane ? { lane: i, chunks: m.lanes[lane]!.chunks } : x)),
    };
    expect(isCanonicalManifest(moved)).toBe(false);
    expect(isCanonicalManifest({ ...m, chunkSize: 0 })).toBe(false);
    const big = build(Array.from({ length: 400 }, (_, i) => uid(i + 1)), 1);
    expect(isCanonicalManifest(big)).toBe(true);
    expect(isCanonicalManifest({ ...big, chunkSize: 5 })).toBe(false);
  });
});
