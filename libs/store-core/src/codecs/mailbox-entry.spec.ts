import fc from 'fast-check';
import { InvalidInputError, InvariantViolationError } from '../errors/domain-errors';
import type { MailboxEntry, MailboxEvent } from '../model/mailbox';
import { MAX_CODEC_EVENT_PAYLOAD_BYTES, MAX_CODEC_EVENTS } from './codec-limits';
import { EVENT_A, EVENT_B, mailboxEntrySamples } from './golden/golden-samples';
import { canonicalizeEvents, decodeMailboxEntry, encodeMailboxEntry } from './mailbox-entry';
import { eventsArb, mailboxEntryArb } from '../testing/arbitraries';
import { codecFailureOf, describeCodecLaws } from '../testing/codec-laws';
import { describeGolden, loadGolden } from '../testing/golden';

const sample = mailboxEntrySamples['two-events']!;
const golden = () => Buffer.from(loadGolden('mailbox-entry').vectors['two-events']!, 'hex');
// two-events offsets: header 0, tenant 4, user 20, mailboxSeq 36, createdAt 44, expiresAt 52, count 60,
// event 0 at 64 (ordinal, id 68, payload length 84, payload 88…89), event 1 at 90 (ordinal, id 94, length 110).
const patched = (at: number, patch: string) => {
  const b = golden();
  Buffer.from(patch, 'hex').copy(b, at);
  return b;
};
const ev = (ordinal: number, eventId = EVENT_A, payload = new Uint8Array(0)): MailboxEvent => ({ ordinal, eventId, payload });

describeGolden('mailbox-entry', mailboxEntrySamples, encodeMailboxEntry, decodeMailboxEntry);
describeCodecLaws('mailbox-entry', { arb: mailboxEntryArb, encode: encodeMailboxEntry, decode: decodeMailboxEntry, magic: 'QME' });

describe('canonicalizeEvents', () => {
  it('sorts by ordinal into a new array of the same objects, leaving the input alone', () => {
    const input = [ev(7, EVENT_A), ev(0, EVENT_B), ev(3, EVENT_A)];
    const out = canonicalizeEvents(input);
    expect(out.map((e) => e.ordinal)).toEqual([0, 3, 7]);
    expect(out[0]).toBe(input[1]);
    expect(input.map((e) => e.ordinal)).toEqual([7, 0, 3]);
  });

  it('fails closed on a repeated ordinal, even with different event ids', () => {
    expect(() => canonicalizeEvents([ev(1, EVENT_A), ev(1, EVENT_B)])).toThrow(InvalidInputError);
  });

  it('normalises any permutation to the same canonical order (property)', () => {
    fc.assert(
      fc.property(
        eventsArb.chain((events) => fc.tuple(fc.constant(events), fc.shuffledSubarray(events, { minLength: events.length }))),
        ([events, shuffled]) => {
          expect(canonicalizeEvents(shuffled)).toEqual(events);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('decodeMailboxEntry refusals', () => {
  it.each([
    ['events out of order', 64, '00000003', 'NOT_CANONICAL'],
    ['a repeated ordinal', 90, '00000000', 'NOT_CANONICAL'],
    ['zero events', 60, '00000000', 'OUT_OF_RANGE'],
    ['more events than allowed', 60, (MAX_CODEC_EVENTS + 1).toString(16).padStart(8, '0'), 'OUT_OF_RANGE'],
    ['more events than bytes', 60, '00000009', 'TRUNCATED'],
    ['mailboxSeq with bit 63', 36, '80', 'OUT_OF_RANGE'],
    ['createdAt with bit 63', 44, '80', 'OUT_OF_RANGE'],
    ['expiresAt with bit 63', 52, 'f0', 'OUT_OF_RANGE'],
    ['a payload above the cap', 84, (MAX_CODEC_EVENT_PAYLOAD_BYTES + 1).toString(16).padStart(8, '0'), 'OUT_OF_RANGE'],
  ])('%s (patched at byte %s)', (_, at, patch, failure) => {
    expect(codecFailureOf(() => decodeMailboxEntry(patched(at as number, patch as string)))).toBe(failure);
  });
});

describe('encodeMailboxEntry validation', () => {
  it.each([
    ['events out of order', { events: [ev(2), ev(1)] }, InvalidInputError],
    ['a repeated ordinal', { events: [ev(1, EVENT_A), ev(1, EVENT_B)] }, InvalidInputError],
    ['no events', { events: [] }, InvalidInputError],
    ['a negative ordinal', { events: [ev(-1)] }, InvalidInputError],
    ['an ordinal above u32', { events: [ev(2 ** 32)] }, InvalidInputError],
    ['a malformed event id', { events: [{ ordinal: 0, eventId: 'zz', payload: new Uint8Array(0) }] }, InvalidInputError],
    ['a mailboxSeq with bit 63', { mailboxSeq: 1n << 63n }, InvariantViolationError],
    ['an expiresAt with bit 63', { expiresAt: 1n << 63n }, InvariantViolationError],
  ])('refuses %s', (_, change, error) => {
    expect(() => encodeMailboxEntry({ ...sample, ...change } as MailboxEntry)).toThrow(error);
  });

  it('accepts the extreme ordinals 0 and 2^32−1', () => {
    const e: MailboxEntry = { ...sample, events: [ev(0), ev(0xffff_ffff, EVENT_B)] };
    expect(decodeMailboxEntry(encodeMailboxEntry(e))).toStrictEqual(e);
  });

  it('encodes canonicalised caller input', () => {
    const e: MailboxEntry = { ...sample, events: canonicalizeEvents([...sample.events].reverse()) };
    expect(encodeMailboxEntry(e).equals(golden())).toBe(true);
  });
});
