import fc from 'fast-check';
import { InvalidInputError, InvariantViolationError } from '../errors/domain-errors';
import type { Id128 } from '../model/ids';
import type { CommitIntent, Publication } from '../model/message';
import { MAX_CODEC_RECIPIENTS } from './codec-limits';
import { decodeCommitIntent, encodeCommitIntent, encodeCommitIntentForms, publishIntentBytes } from './commit-intent';
import { commitIntentSamples, sendRequestSamples, USER_A, SENDER } from './golden/golden-samples';
import { commitKeyOf } from './send-request';
import { commitIntentArb } from '../testing/arbitraries';
import { codecFailureOf, describeCodecLaws } from '../testing/codec-laws';
import { describeGolden, loadGolden } from '../testing/golden';

const reserved = commitIntentSamples['reserved']!;
const published = commitIntentSamples['published']!;
const golden = (name: string) => Buffer.from(loadGolden('commit-intent').vectors[name]!, 'hex');
const goldenRequest = Buffer.from(loadGolden('send-request').vectors['normal-default']!, 'hex');
// reserved offsets: header 0, identity 4…35, request length 36, request 40…128, seq 129, messageId 137,
// createdAt 153, recipients count 161, recipients 165 and 181, publication flag 197 (last byte).
const SEQ = 129;
const RECIPIENTS = 161;
const PUBLICATION = 197;
const patched = (at: number, patch: string) => {
  const b = golden('reserved');
  Buffer.from(patch, 'hex').copy(b, at);
  return b;
};
const withPublication = (hex: string) => Buffer.concat([golden('reserved').subarray(0, PUBLICATION), Buffer.from(hex, 'hex')]);

describeGolden('commit-intent', commitIntentSamples, encodeCommitIntent, decodeCommitIntent);
describeCodecLaws('commit-intent', { arb: commitIntentArb, encode: encodeCommitIntent, decode: decodeCommitIntent, magic: 'QCI' });

describe('commit-intent layout', () => {
  it('embeds the exact send-request encoding and ends with the publication flag', () => {
    const b = golden('reserved');
    expect(b.readUInt32BE(36)).toBe(goldenRequest.length);
    expect(b.subarray(40, 40 + goldenRequest.length).equals(goldenRequest)).toBe(true);
    expect(b.length).toBe(PUBLICATION + 1);
  });

  it('derives the key from the embedded request', () => {
    expect(decodeCommitIntent(golden('published')).key).toEqual(commitKeyOf(sendRequestSamples['edited-control-ephemeral']!));
  });
});

describe('decodeCommitIntent refusals', () => {
  it.each([
    ['a stored identity that is not the digest of the request', 4, '00', 'NOT_CANONICAL'],
    ['a request that differs from the stored identity', 121, '01', 'NOT_CANONICAL'],
    ['seq 0', SEQ, '0000000000000000', 'OUT_OF_RANGE'],
    ['seq with bit 63', SEQ, '8000000000000001', 'OUT_OF_RANGE'],
    ['createdAt with bit 63', 153, 'ff', 'OUT_OF_RANGE'],
    ['recipients above the cap', RECIPIENTS, (MAX_CODEC_RECIPIENTS + 1).toString(16).padStart(8, '0'), 'OUT_OF_RANGE'],
    ['more recipients than bytes', RECIPIENTS, '00000003', 'TRUNCATED'],
    ['equal recipients', 181, '22'.repeat(16), 'NOT_CANONICAL'],
    ['descending recipients', 181, '11'.repeat(16), 'NOT_CANONICAL'],
    ['publication flag 2', PUBLICATION, '02', 'OUT_OF_RANGE'],
    ['an embedded request with another magic', 40, '58', 'BAD_MAGIC'],
    ['an embedded request longer than the cap', 36, 'ffffffff', 'OUT_OF_RANGE'],
  ])('%s (patched at byte %s)', (_, at, patch, failure) => {
    expect(codecFailureOf(() => decodeCommitIntent(patched(at as number, patch as string)))).toBe(failure);
  });

  it.each([
    ['partition 2^31', '01' + '0001' + '61' + '80000000' + '0000000000000000', 'OUT_OF_RANGE'],
    ['an illegal topic character', '01' + '0001' + '2f' + '00000000' + '0000000000000000', 'OUT_OF_RANGE'],
    ['an empty topic', '01' + '0000' + '00000000' + '0000000000000000', 'OUT_OF_RANGE'],
    ['offset with bit 63', '01' + '0001' + '61' + '00000000' + '8000000000000000', 'OUT_OF_RANGE'],
    ['a missing offset', '01' + '0001' + '61' + '00000000', 'TRUNCATED'],
    ['a legal publication', '01' + '0001' + '61' + '7fffffff' + '7fffffffffffffff', null],
  ])('publication with %s', (_, hex, failure) => {
    const b = withPublication(hex as string);
    if (failure === null) {
      expect(decodeCommitIntent(b).publication).toEqual({ topic: 'a', partition: 0x7fffffff, offset: (1n << 63n) - 1n });
      expect(encodeCommitIntent(decodeCommitIntent(b)).equals(b)).toBe(true);
    } else {
      expect(codecFailureOf(() => decodeCommitIntent(b))).toBe(failure);
    }
  });
});

describe('encodeCommitIntent validation', () => {
  const pub = (p: Partial<Record<keyof Publication, unknown>>) => ({ ...published.publication!, ...p });
  it.each([
    ['a key of another request', { key: { ...reserved.key, clientMessageId: 'f'.repeat(32) } }, InvariantViolationError],
    ['an identity of another request', { identity: published.identity }, InvariantViolationError],
    ['a 31-byte identity', { identity: reserved.identity.subarray(0, 31) }, InvariantViolationError],
    ['seq 0', { seq: 0n }, InvalidInputError],
    ['seq 2^63', { seq: 1n << 63n }, InvariantViolationError],
    ['createdAt −1', { createdAt: -1n }, InvariantViolationError],
    ['a malformed message id', { messageId: 'x'.repeat(32) }, InvalidInputError],
    ['unsorted recipients', { recipients: [USER_A, SENDER] }, InvalidInputError],
    ['duplicate recipients', { recipients: [SENDER, SENDER] }, InvalidInputError],
    ['an illegal topic', { publication: pub({ topic: 'qim messages' }) }, InvalidInputError],
    ['a topic of 250 characters', { publication: pub({ topic: 'a'.repeat(250) }) }, InvalidInputError],
    ['a negative partition', { publication: pub({ partition: -1 }) }, InvalidInputError],
    ['partition 2^31', { publication: pub({ partition: 2 ** 31 }) }, InvalidInputError],
    ['an offset with bit 63', { publication: pub({ offset: 1n << 63n }) }, InvariantViolationError],
    ['an invalid request', { request: { ...reserved.request, kind: 'deleted' } }, InvalidInputError],
  ])('refuses %s', (_, change, error) => {
    expect(() => encodeCommitIntent({ ...reserved, ...change } as CommitIntent)).toThrow(error);
  });

  it('accepts a 249-character topic and an empty recipient list', () => {
    const i: CommitIntent = { ...published, recipients: [], publication: pub({ topic: 'A-._'.repeat(62) + 'z' }) as Publication };
    expect(decodeCommitIntent(encodeCommitIntent(i))).toStrictEqual(i);
  });

  it('does not depend on the identity object type (Buffer or Uint8Array)', () => {
    const asBuffer = { ...reserved, identity: Buffer.from(reserved.identity) };
    expect(encodeCommitIntent(asBuffer).equals(golden('reserved'))).toBe(true);
    expect(decodeCommitIntent(golden('reserved')).recipients).toEqual([SENDER, USER_A] satisfies Id128[]);
  });
});

describe('encodeCommitIntentForms', () => {
  it('gives the unpublished and the published stored bytes from one encoding (the golden vectors)', () => {
    const forms = encodeCommitIntentForms(published, published.publication);
    expect(forms?.published?.equals(golden('published'))).toBe(true);
    expect(forms?.unpublished.equals(encodeCommitIntent({ ...published, publication: null }))).toBe(true);
    expect(encodeCommitIntentForms(reserved)).toEqual({ unpublished: golden('reserved'), published: null });
  });

  it('equals encodeCommitIntent for every intent and publication', () => {
    fc.assert(
      fc.property(commitIntentArb, (i) => {
        const forms = encodeCommitIntentForms(i, i.publication);
        expect(forms?.unpublished.equals(encodeCommitIntent({ ...i, publication: null }))).toBe(true);
        expect(i.publication === null ? forms?.published === null : forms?.published?.equals(encodeCommitIntent(i))).toBe(true);
      }),
    );
  });

  it('publishIntentBytes fills in the publication of unpublished bytes; other bytes are refused', () => {
    expect(publishIntentBytes(encodeCommitIntent({ ...published, publication: null }), published.publication!).equals(golden('published'))).toBe(true);
    expect(() => publishIntentBytes(golden('published'), published.publication!)).toThrow(InvariantViolationError);
    expect(() => publishIntentBytes(Buffer.from('QMR\x01\x00', 'latin1'), published.publication!)).toThrow(InvariantViolationError);
    expect(() => publishIntentBytes(golden('reserved'), { topic: 'bad topic', partition: 0, offset: 0n })).toThrow(InvalidInputError);
  });

  it("is null for an intent whose key or identity is not its request's; other invalid fields throw", () => {
    expect(encodeCommitIntentForms({ ...reserved, identity: published.identity })).toBeNull();
    expect(encodeCommitIntentForms({ ...reserved, key: { ...reserved.key, clientMessageId: 'f'.repeat(32) as Id128 } })).toBeNull();
    expect(() => encodeCommitIntentForms({ ...reserved, seq: 0n })).toThrow(InvalidInputError);
    expect(() => encodeCommitIntentForms(reserved, { topic: 'bad topic', partition: 0, offset: 0n })).toThrow(InvalidInputError);
  });
});
