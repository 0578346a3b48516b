import {
  EpochMismatchError,
  InvalidInputError,
  composeMailboxSeq,
  dayOf,
  decodeMailboxEntry,
  encodeMailboxEntry,
  entryExpiry,
  entriesOfDispatch,
} from '@qim/store-core';
import type { DispatchRecord, Id128 } from '@qim/store-core';
import { groupByUser, prepareDispatchEntries, prepareEntry } from './prepared-entry';

const id = (c: string): Id128 => c.repeat(32) as Id128;
const NOW = 1_700_000_000_000n;
const WEEK = 7n * 86_400_000n;
const record: DispatchRecord = {
  dispatchId: id('d'),
  tenantId: id('a'),
  shard: 3,
  messageId: id('e'),
  conversationId: id('f'),
  seq: 4n,
  createdAt: NOW,
  recipients: [id('1'), id('2'), id('3')],
  events: [
    { ordinal: 2, eventId: id('9'), payload: Buffer.from('two') },
    { ordinal: 0, eventId: id('8'), payload: Buffer.from('zero') },
  ],
};

describe('prepared entries', () => {
  it('a dispatch’s entries are byte for byte the store-core encoding of entriesOfDispatch, one per recipient', () => {
    const prepared = prepareDispatchEntries(record, 5, 41n, WEEK, 1000n);
    const expected = entriesOfDispatch(record, 5, 41n).map((e) => prepareEntry(e, 5, WEEK, 1000n));
    expect(prepared).toEqual(expected);
    expect(prepared.map((p) => decodeMailboxEntry(p.member.subarray(16)).userId)).toEqual(record.recipients);
    const [first] = prepared;
    expect(first!.member.subarray(16)).toEqual(
      encodeMailboxEntry({ ...entriesOfDispatch(record, 5, 41n)[0]!, events: [record.events[1]!, record.events[0]!], expiresAt: entryExpiry(NOW, WEEK) }),
    );
    expect(first!.head).toBe(`${composeMailboxSeq(5, 41n).toString(16).padStart(16, '0')}${entryExpiry(NOW, WEEK).toString(16).padStart(16, '0')}`);
    expect(first!.tail).toBe(`${entryExpiry(NOW, WEEK) + 1000n}:${dayOf(NOW)}`);
    expect(prepareDispatchEntries({ ...record, recipients: [] }, 5, 41n, WEEK, 1000n)).toEqual([]);
  });

  it('input entries are validated before anything is sent', () => {
    const ok = {
      tenantId: id('a'),
      userId: id('b'),
      mailboxSeq: composeMailboxSeq(5, 1n),
      createdAt: NOW,
      events: [{ ordinal: 0, eventId: id('c'), payload: Buffer.from('x') }],
    };
    expect(() => prepareEntry({ ...ok, userId: 'B'.repeat(32) as Id128 }, 5, WEEK, 1000n)).toThrow(InvalidInputError);
    expect(() => prepareEntry({ ...ok, mailboxSeq: composeMailboxSeq(6, 1n) }, 5, WEEK, 1000n)).toThrow(EpochMismatchError);
    expect(() => prepareEntry({ ...ok, mailboxSeq: composeMailboxSeq(5, 0n) - 1n }, 5, WEEK, 1000n)).toThrow(InvalidInputError);
    const twice = [prepareEntry(ok, 5, WEEK, 1000n), prepareEntry({ ...ok, userId: id('c') }, 5, WEEK, 1000n), prepareEntry(ok, 5, WEEK, 1000n)];
    expect(() => groupByUser(twice)).toThrow(InvalidInputError);
    expect(groupByUser(twice.slice(0, 2)).map((g) => g.length)).toEqual([1, 1]);
  });
});
