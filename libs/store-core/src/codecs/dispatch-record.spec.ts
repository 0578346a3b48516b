import { InvalidInputError, InvariantViolationError } from '../errors/domain-errors';
import type { DispatchRecord, MailboxEvent } from '../model/mailbox';
import { decodeDispatchRecord, encodeDispatchRecord } from './dispatch-record';
import { dispatchRecordSamples, EVENT_A, EVENT_B, SENDER, USER_A } from './golden/golden-samples';
import { dispatchRecordArb } from '../testing/arbitraries';
import { codecFailureOf, describeCodecLaws } from '../testing/codec-laws';
import { describeGolden, loadGolden } from '../testing/golden';

const sample = dispatchRecordSamples['one-event']!;
const golden = () => Buffer.from(loadGolden('dispatch-record').vectors['one-event']!, 'hex');
// one-event offsets: header 0, dispatch 4, tenant 20, shard 36, message 38, conversation 54, seq 70,
// createdAt 78, recipients count 86, ids 90 and 106, events count 122, ordinal 126, event id 130, payload 146.
const patched = (at: number, patch: string) => {
  const b = golden();
  Buffer.from(patch, 'hex').copy(b, at);
  return b;
};
const ev = (ordinal: number, eventId = EVENT_A): MailboxEvent => ({ ordinal, eventId, payload: new Uint8Array(0) });

describeGolden('dispatch-record', dispatchRecordSamples, encodeDispatchRecord, decodeDispatchRecord);
describeCodecLaws('dispatch-record', { arb: dispatchRecordArb, encode: encodeDispatchRecord, decode: decodeDispatchRecord, magic: 'QDR' });

describe('dispatch-record layout', () => {
  it('places the fields where the layout says', () => {
    const b = golden();
    expect(b.readUInt16BE(36)).toBe(3);
    expect(b.subarray(54, 70).toString('hex')).toBe(sample.conversationId);
    expect(b.readBigUInt64BE(70)).toBe(1n);
    expect(b.readUInt32BE(86)).toBe(2);
    expect(b.readUInt32BE(122)).toBe(1);
    expect(b.subarray(146).toString('hex')).toBe('00000003c0ffee');
  });
});

describe('decodeDispatchRecord refusals', () => {
  it.each([
    ['seq 0', 70, '0000000000000000', 'OUT_OF_RANGE'],
    ['seq with bit 63', 70, '80', 'OUT_OF_RANGE'],
    ['createdAt with bit 63', 78, '80', 'OUT_OF_RANGE'],
    ['descending recipients', 106, '11'.repeat(16), 'NOT_CANONICAL'],
    ['zero events', 122, '00000000', 'OUT_OF_RANGE'],
    ['more events than bytes', 122, '00000002', 'TRUNCATED'],
  ])('%s (patched at byte %s)', (_, at, patch, failure) => {
    expect(codecFailureOf(() => decodeDispatchRecord(patched(at as number, patch as string)))).toBe(failure);
  });

  it('refuses events out of canonical order (NOT_CANONICAL)', () => {
    const two = encodeDispatchRecord({ ...sample, events: [ev(1, EVENT_A), ev(2, EVENT_B)] });
    two.writeUInt32BE(3, 126);
    expect(codecFailureOf(() => decodeDispatchRecord(two))).toBe('NOT_CANONICAL');
    two.writeUInt32BE(2, 126);
    expect(codecFailureOf(() => decodeDispatchRecord(two))).toBe('NOT_CANONICAL');
  });
});

describe('encodeDispatchRecord validation', () => {
  it.each([
    ['shard 65536', { shard: 65_536 }, InvalidInputError],
    ['a negative shard', { shard: -1 }, InvalidInputError],
    ['seq 0', { seq: 0n }, InvalidInputError],
    ['seq 2^63', { seq: 1n << 63n }, InvariantViolationError],
    ['createdAt 2^63', { createdAt: 1n << 63n }, InvariantViolationError],
    ['unsorted recipients', { recipients: [USER_A, SENDER] }, InvalidInputError],
    ['no events', { events: [] }, InvalidInputError],
    ['events out of order', { events: [ev(2), ev(1, EVENT_B)] }, InvalidInputError],
    ['a repeated ordinal', { events: [ev(1), ev(1, EVENT_B)] }, InvalidInputError],
    ['a malformed message id', { messageId: 'M'.repeat(32) }, InvalidInputError],
  ])('refuses %s', (_, change, error) => {
    expect(() => encodeDispatchRecord({ ...sample, ...change } as DispatchRecord)).toThrow(error);
  });

  it('accepts shard 65535 and no recipients', () => {
    const d: DispatchRecord = { ...sample, shard: 65_535, recipients: [] };
    expect(decodeDispatchRecord(encodeDispatchRecord(d))).toStrictEqual(d);
  });
});
