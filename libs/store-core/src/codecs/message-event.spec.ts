import fc from 'fast-check';
import { CodecError, InvalidInputError } from '../errors/domain-errors';
import type { CommitIntent } from '../model/message';
import { messageEventOf, recordFromIntent } from '../rules/record-from-intent';
import { commitIntentSamples, messageEventSamples, SENDER, USER_A } from './golden/golden-samples';
import { decodeMessageEvent, encodeMessageEvent, messageEventLength } from './message-event';
import type { MessageEvent } from './message-event';
import { commitIntentArb, messageEventArb } from '../testing/arbitraries';
import { codecFailureOf, describeCodecLaws } from '../testing/codec-laws';
import { describeGolden, loadGolden } from '../testing/golden';

const sample = messageEventSamples['normal-default']!;
const golden = () => Buffer.from(loadGolden('message-event').vectors['normal-default']!, 'hex');
const goldenRecord = Buffer.from(loadGolden('message-record').vectors['normal-default']!, 'hex');
// normal-default offsets: header 0, record length 4, record 8…128, recipients count 129, ids 133 and 149.
const patched = (at: number, patch: string) => {
  const b = golden();
  Buffer.from(patch, 'hex').copy(b, at);
  return b;
};

describeGolden('message-event', messageEventSamples, encodeMessageEvent, decodeMessageEvent);
describeCodecLaws('message-event', { arb: messageEventArb, encode: encodeMessageEvent, decode: decodeMessageEvent, magic: 'QEV' });

describe('message-event layout', () => {
  it('embeds the exact message-record encoding, then the recipients', () => {
    const b = golden();
    expect(b.readUInt32BE(4)).toBe(goldenRecord.length);
    expect(b.subarray(8, 8 + goldenRecord.length).equals(goldenRecord)).toBe(true);
    expect(b.readUInt32BE(129)).toBe(2);
    expect(b.length).toBe(165);
  });
});

describe('decodeMessageEvent refusals', () => {
  it.each([
    ['equal recipients', 149, SENDER, 'NOT_CANONICAL'],
    ['descending recipients', 149, '11'.repeat(16), 'NOT_CANONICAL'],
    ['a record length above the cap', 4, '7fffffff', 'OUT_OF_RANGE'],
    ['a record length beyond the input', 4, '00000100', 'TRUNCATED'],
  ])('%s (patched at byte %s)', (_, at, patch, failure) => {
    expect(codecFailureOf(() => decodeMessageEvent(patched(at as number, patch as string)))).toBe(failure);
  });

  it('passes on the embedded record codec error', () => {
    expect(() => decodeMessageEvent(patched(8 + 36, '00'.repeat(8)))).toThrow(new CodecError('message-record', 'OUT_OF_RANGE', 'seq is 0'));
  });
});

describe('encodeMessageEvent validation', () => {
  it.each([
    ['unsorted recipients', { recipients: [USER_A, SENDER] }],
    ['duplicate recipients', { recipients: [USER_A, USER_A] }],
    ['an invalid record', { record: { ...sample.record, seq: 0n } }],
  ])('refuses %s with InvalidInputError', (_, change) => {
    expect(() => encodeMessageEvent({ ...sample, ...change } as MessageEvent)).toThrow(InvalidInputError);
  });
});

describe('messageEventOf', () => {
  const reserved = commitIntentSamples['reserved']!;

  it('builds the golden event from the golden intent', () => {
    expect(messageEventOf(reserved)).toStrictEqual(sample);
    expect(encodeMessageEvent(messageEventOf(reserved)).equals(golden())).toBe(true);
  });

  it('is the intent record plus a copy of its recipient snapshot', () => {
    const event = messageEventOf(reserved);
    expect(event.record).toEqual(recordFromIntent(reserved));
    expect(event.recipients).toEqual(reserved.recipients);
    expect(event.recipients).not.toBe(reserved.recipients);
  });

  it('is byte-identical on republish: the publication never changes the event (property)', () => {
    fc.assert(
      fc.property(commitIntentArb, (intent) => {
        const first = encodeMessageEvent(messageEventOf(intent));
        const republished: CommitIntent = { ...intent, publication: { topic: 'qim.messages', partition: 1, offset: 99n } };
        expect(encodeMessageEvent(messageEventOf(republished)).equals(first)).toBe(true);
        expect(decodeMessageEvent(first)).toStrictEqual(messageEventOf(intent));
      }),
      { numRuns: 100 },
    );
  });
});

describe('messageEventLength', () => {
  it('is the length of the encoding, for any event', () => {
    fc.assert(fc.property(messageEventArb, (e) => messageEventLength(e) === encodeMessageEvent(e).length));
  });
});
