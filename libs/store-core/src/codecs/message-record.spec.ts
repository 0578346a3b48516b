import { InvalidInputError, InvariantViolationError } from '../errors/domain-errors';
import type { MessageRecord } from '../model/message';
import { messageRecordSamples } from './golden/golden-samples';
import { decodeMessageRecord, encodeMessageRecord } from './message-record';
import { messageRecordArb } from '../testing/arbitraries';
import { codecFailureOf, describeCodecLaws } from '../testing/codec-laws';
import { describeGolden, loadGolden } from '../testing/golden';

const sample = messageRecordSamples['normal-default']!;
const golden = () => Buffer.from(loadGolden('message-record').vectors['normal-default']!, 'hex');
// normal-default offsets: header 0, tenant 4, conversation 20, seq 36, messageId 44, sender 60,
// clientMessageId 76, kind 92, control 93, contentType 94 (2 + 10), body 106 (4 + 2), createdAt 112, retention 120.
const patched = (at: number, patch: string) => {
  const b = golden();
  Buffer.from(patch, 'hex').copy(b, at);
  return b;
};

describeGolden('message-record', messageRecordSamples, encodeMessageRecord, decodeMessageRecord);
describeCodecLaws('message-record', { arb: messageRecordArb, encode: encodeMessageRecord, decode: decodeMessageRecord, magic: 'QMR' });

describe('message-record layout', () => {
  it('places every field where the layout says', () => {
    const b = golden();
    expect(b.length).toBe(121);
    expect(b.subarray(4, 20).toString('hex')).toBe(sample.tenantId);
    expect(b.subarray(20, 36).toString('hex')).toBe(sample.conversationId);
    expect(b.readBigUInt64BE(36)).toBe(sample.seq);
    expect(b.subarray(44, 60).toString('hex')).toBe(sample.messageId);
    expect(b.subarray(60, 76).toString('hex')).toBe(sample.senderId);
    expect(b.subarray(76, 92).toString('hex')).toBe(sample.clientMessageId);
    expect(b.subarray(94, 106).toString('latin1')).toBe('\x00\x0atext/plain');
    expect(b.readBigUInt64BE(112)).toBe(sample.createdAt);
    expect(b[120]).toBe(0);
  });
});

describe('decodeMessageRecord refusals', () => {
  it.each([
    ['seq 0', 36, '0000000000000000', 'OUT_OF_RANGE'],
    ['seq with bit 63', 36, '8000000000000000', 'OUT_OF_RANGE'],
    ['createdAt with bit 63', 112, '80', 'OUT_OF_RANGE'],
    ['unknown kind', 92, 'ff', 'OUT_OF_RANGE'],
    ['control 2', 93, '02', 'OUT_OF_RANGE'],
    ['unknown retention', 120, '07', 'OUT_OF_RANGE'],
    ['malformed UTF-8', 96, 'c0', 'OUT_OF_RANGE'],
    ['a body longer than the input', 106, '00000010', 'TRUNCATED'],
  ])('%s (patched at byte %s)', (_, at, patch, failure) => {
    expect(codecFailureOf(() => decodeMessageRecord(patched(at as number, patch as string)))).toBe(failure);
  });
});

describe('encodeMessageRecord validation', () => {
  it.each([
    ['seq 0', { seq: 0n }, InvalidInputError],
    ['seq 2^63', { seq: 1n << 63n }, InvariantViolationError],
    ['createdAt 2^63', { createdAt: 1n << 63n }, InvariantViolationError],
    ['a malformed conversation id', { conversationId: '' }, InvalidInputError],
    ['an unknown kind', { kind: 'NORMAL' }, InvalidInputError],
    ['a lone surrogate', { contentType: '\udfff' }, InvalidInputError],
    ['an ephemeral ttl of 0', { retention: { kind: 'ephemeral', ttlSeconds: 0 } }, InvalidInputError],
  ])('refuses %s', (_, change, error) => {
    expect(() => encodeMessageRecord({ ...sample, ...change } as MessageRecord)).toThrow(error);
  });
});
