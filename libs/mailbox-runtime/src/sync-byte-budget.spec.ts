import type { Id128, MailboxEntry } from '@qim/store-core';
import { cutByBytes, entryBytes } from './sync-byte-budget';

const id = '0'.repeat(32) as Id128;
const entry = (seq: bigint, ...sizes: number[]): MailboxEntry => ({
  tenantId: id,
  userId: id,
  mailboxSeq: seq,
  createdAt: 0n,
  expiresAt: 1n,
  events: sizes.map((n, ordinal) => ({ ordinal, eventId: id, payload: new Uint8Array(n) })),
});

describe('sync byte budget', () => {
  it('counts every event payload of an entry', () => {
    expect(entryBytes(entry(1n, 10, 5))).toBe(15);
  });

  it('keeps the longest prefix within the budget, the first entry always whole', () => {
    const es = [entry(1n, 100), entry(2n, 50), entry(3n, 50)];
    expect(cutByBytes(es, 1).map((e) => e.mailboxSeq)).toEqual([1n]);
    expect(cutByBytes(es, 150).map((e) => e.mailboxSeq)).toEqual([1n, 2n]);
    expect(cutByBytes(es, 200)).toBe(es);
    expect(cutByBytes([], 1)).toEqual([]);
  });
});
