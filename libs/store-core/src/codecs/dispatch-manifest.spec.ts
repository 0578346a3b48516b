import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { InvalidInputError } from '../errors/domain-errors';
import type { Id128 } from '../model/ids';
import { LANE_COUNT } from '../model/mailbox';
import type { DispatchManifest, ManifestLane } from '../model/mailbox';
import { buildManifest } from '../rules/manifest-builder';
import { decodeDispatchManifest, encodeDispatchManifest, manifestDigest } from './dispatch-manifest';
import { CLIENT_MSG, dispatchManifestSamples, SENDER, USER_A, USER_B } from './golden/golden-samples';
import { idArb, manifestArb } from './test-support/arbitraries';
import { codecFailureOf, describeCodecLaws } from './test-support/codec-laws';
import { describeGolden, loadGolden } from './test-support/golden';

const sample = dispatchManifestSamples['three-lanes']!;
const golden = () => Buffer.from(loadGolden('dispatch-manifest').vectors['three-lanes']!, 'hex');

/** Independent byte builder of the v1 layout: lanes → chunks → users, no validation at all. */
function rawManifest(m: { dispatchId: string; tenantId: string; chunkSize: number; lanes: string[][][] }): Buffer {
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    return b;
  };
  const parts = [Buffer.from('QDM\x01', 'latin1'), Buffer.from(m.dispatchId + m.tenantId, 'hex'), u32(m.chunkSize)];
  for (const chunks of m.lanes) {
    parts.push(u32(chunks.length));
    for (const users of chunks) parts.push(u32(users.length), Buffer.from(users.join(''), 'hex'));
  }
  return Buffer.concat(parts);
}
const rawOf = (m: DispatchManifest) => ({ ...m, lanes: m.lanes.map((l) => l.chunks.map((c) => [...c.users])) });
const lanesWith = (fill: Record<number, string[][]>): string[][][] => Array.from({ length: LANE_COUNT }, (_, i) => fill[i] ?? []);
const base = { dispatchId: sample.dispatchId, tenantId: sample.tenantId, chunkSize: 2 };

describeGolden('dispatch-manifest', dispatchManifestSamples, encodeDispatchManifest, decodeDispatchManifest);
describeCodecLaws('dispatch-manifest', { arb: manifestArb, encode: encodeDispatchManifest, decode: decodeDispatchManifest, magic: 'QDM' });

describe('dispatch-manifest layout', () => {
  it('matches an independent byte builder on the golden sample (372 bytes)', () => {
    expect(rawManifest(rawOf(sample)).equals(golden())).toBe(true);
    expect(golden().length).toBe(4 + 32 + 4 + 64 * 4 + (4 + 16) + (4 + 32) + (4 + 16));
  });

  it('round-trips every manifest the rules builder produces', () => {
    fc.assert(
      fc.property(idArb, idArb, fc.array(idArb, { maxLength: 40 }), fc.integer({ min: 1, max: 5 }), (dispatchId, tenantId, recipients, chunkSize) => {
        const m = buildManifest({ dispatchId, tenantId, recipients, chunkSize });
        const bytes = encodeDispatchManifest(m);
        expect(decodeDispatchManifest(bytes)).toStrictEqual(m);
        expect(manifestDigest(m).equals(createHash('sha256').update(bytes).digest())).toBe(true);
      }),
      { numRuns: 100 },
    );
  });
});

describe('manifestDigest', () => {
  it('is the SHA-256 of the golden encoding and differs between manifests', () => {
    expect(manifestDigest(sample).toString('hex')).toBe(createHash('sha256').update(golden()).digest('hex'));
    expect(manifestDigest(sample)).toHaveLength(32);
    expect(manifestDigest(sample).equals(manifestDigest({ ...sample, chunkSize: 3 }))).toBe(false);
  });
});

describe('decodeDispatchManifest refusals', () => {
  it.each([
    ['users descending in a chunk', { ...base, lanes: lanesWith({ 5: [[CLIENT_MSG, SENDER]] }) }, 'NOT_CANONICAL'],
    ['a user repeated in a chunk', { ...base, lanes: lanesWith({ 5: [[SENDER, SENDER]] }) }, 'NOT_CANONICAL'],
    ['users descending across chunks', { ...base, lanes: lanesWith({ 5: [[USER_A], [SENDER]] }) }, 'NOT_CANONICAL'],
    ['a user in two lanes', { ...base, lanes: lanesWith({ 1: [[USER_A]], 9: [[USER_A]] }) }, 'NOT_CANONICAL'],
    ['an empty chunk', { ...base, lanes: lanesWith({ 3: [[]] }) }, 'OUT_OF_RANGE'],
    ['a chunk above chunkSize', { ...base, lanes: lanesWith({ 3: [[SENDER, USER_A, USER_B]] }) }, 'OUT_OF_RANGE'],
    ['chunkSize 0', { ...base, chunkSize: 0, lanes: lanesWith({}) }, 'OUT_OF_RANGE'],
    ['chunkSize above the cap', { ...base, chunkSize: 2 ** 20 + 1, lanes: lanesWith({}) }, 'OUT_OF_RANGE'],
    ['only 63 lanes', { ...base, lanes: lanesWith({}).slice(1) }, 'TRUNCATED'],
    ['65 lanes', { ...base, lanes: [...lanesWith({}), []] }, 'TRAILING_BYTES'],
  ])('refuses %s', (_, raw, failure) => {
    expect(codecFailureOf(() => decodeDispatchManifest(rawManifest(raw)))).toBe(failure);
  });

  it('refuses a chunk count that cannot fit before allocating (TRUNCATED)', () => {
    const b = rawManifest({ ...base, lanes: lanesWith({}) });
    b.writeUInt32BE(0xffff_ffff, 40);
    expect(codecFailureOf(() => decodeDispatchManifest(b))).toBe('TRUNCATED');
  });

  it('accepts the same users in ascending chunks of any fill', () => {
    const raw = { ...base, lanes: lanesWith({ 5: [[SENDER], [CLIENT_MSG, USER_A]] }) };
    expect(encodeDispatchManifest(decodeDispatchManifest(rawManifest(raw))).equals(rawManifest(raw))).toBe(true);
  });
});

describe('encodeDispatchManifest validation', () => {
  const lanes = (fill: Record<number, ManifestLane['chunks']>): ManifestLane[] =>
    Array.from({ length: LANE_COUNT }, (_, lane) => ({ lane, chunks: fill[lane] ?? [] }));
  const chunk = (chunkId: number, users: Id128[]) => ({ chunkId, users });
  it.each([
    ['63 lanes', { lanes: lanes({}).slice(1) }],
    ['lanes out of position', { lanes: [...lanes({}).slice(1), { lane: 0, chunks: [] }] }],
    ['a chunk id out of position', { lanes: lanes({ 2: [chunk(1, [USER_A])] }) }],
    ['an empty chunk', { lanes: lanes({ 2: [chunk(0, [])] }) }],
    ['a chunk above chunkSize', { lanes: lanes({ 2: [chunk(0, [SENDER, CLIENT_MSG, USER_A])] }) }],
    ['unsorted users', { lanes: lanes({ 2: [chunk(0, [USER_A, SENDER])] }) }],
    ['users descending across chunks', { lanes: lanes({ 2: [chunk(0, [USER_A]), chunk(1, [SENDER])] }) }],
    ['a user in two lanes', { lanes: lanes({ 2: [chunk(0, [USER_A])], 3: [chunk(0, [USER_A])] }) }],
    ['a malformed user id', { lanes: lanes({ 2: [chunk(0, ['nope' as Id128])] }) }],
    ['chunkSize 0', { chunkSize: 0 }],
    ['a fractional chunkSize', { chunkSize: 1.5 }],
    ['a malformed dispatch id', { dispatchId: 'x' as Id128 }],
  ])('refuses %s with InvalidInputError', (_, change) => {
    expect(() => encodeDispatchManifest({ ...sample, ...change } as DispatchManifest)).toThrow(InvalidInputError);
  });
});
