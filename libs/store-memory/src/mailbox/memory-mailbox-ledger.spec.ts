import { CursorExpiredError, DAY_MS, composeMailboxSeq, dayOf, decodeActiveLedger, entryExpiry, epochStartSeq } from '@qim/store-core';
import { ManualClock } from '@qim/store-core/testing';
import type { Id128, MailboxEntryInput } from '@qim/store-core';
import { MemoryMailboxBackend, userKey } from './memory-mailbox-backend';
import { MemoryMailboxStore } from './memory-mailbox-store';

/**
 * Issue 15 (5): the reference model follows ADR-0022 §5 like Redis and Scylla — the retention meta
 * changes only when the user's ledger must change (first entry of a day, an expired day consumed);
 * the day's highest seq rides on the bucket proof, and consumption merges the proof's max seq.
 */
const EPOCH = 3;
const T = '0123456789abcdef0123456789abcdef' as Id128;
const U = 'fedcba9876543210fedcba9876543210' as Id128;
const seq = (o: bigint): bigint => composeMailboxSeq(EPOCH, o);
const TOP = composeMailboxSeq(EPOCH, (1n << 47n) - 2n);
const input = (s: bigint, createdAt: bigint): MailboxEntryInput => ({
  tenantId: T,
  userId: U,
  mailboxSeq: s,
  createdAt,
  events: [{ ordinal: 0, eventId: T, payload: Buffer.from('x') }],
});

function setup() {
  const clock = new ManualClock(20_000n * DAY_MS + 3_600_000n);
  const backend = new MemoryMailboxBackend();
  const store = new MemoryMailboxStore({ shardEpoch: { shard: 1, epoch: EPOCH }, gc: { entryRetentionMs: DAY_MS, dispatchDedupeMs: DAY_MS }, clock, backend });
  const meta = () => backend.retention.get(userKey(T, U), clock.nowMs())!;
  return { clock, backend, store, meta };
}

describe('Memory retention meta follows ADR-0022 §5', () => {
  it('only the first entry of a day changes the meta; later ones raise only the bucket proof', async () => {
    const { clock, store, meta } = setup();
    await store.appendBatch([input(seq(1n), clock.nowMs())]);
    const registered = meta();
    expect(registered.generation).toBe(1n);
    await store.appendBatch([input(seq(2n), clock.nowMs()), input(seq(7n), clock.nowMs())]);
    await store.appendBatch([input(seq(4n), clock.nowMs())]);
    expect(meta().generation).toBe(1n);
    expect(decodeActiveLedger(meta().ledger)).toEqual([{ day: dayOf(clock.nowMs()), maxSeq: seq(1n), expiresAt: entryExpiry(clock.nowMs(), DAY_MS) }]);
    // a new day registers (one change), its later entries do not
    clock.advance(DAY_MS);
    await store.appendBatch([input(seq(8n), clock.nowMs()), input(seq(9n), clock.nowMs())]);
    expect(meta().generation).toBe(2n);
  });

  it('an expired day is consumed at its proof max seq, not at the lagging ledger item', async () => {
    const { clock, store, meta } = setup();
    const day0 = clock.nowMs();
    await store.appendBatch([input(seq(1n), day0), input(seq(7n), day0), input(seq(3n), day0)]);
    expect(decodeActiveLedger(meta().ledger)[0]!.maxSeq).toBe(seq(1n));
    await clock.set(entryExpiry(day0, DAY_MS));
    // consumed by an append (first entry of a new day) …
    await store.appendBatch([input(seq(10n), clock.nowMs())]);
    const err = await store.rangeScan(T, U, seq(6n), TOP, 10).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CursorExpiredError);
    expect((err as CursorExpiredError).boundary).toBe(seq(7n));
    expect((await store.rangeScan(T, U, seq(7n), TOP, 10)).entries.map((e) => e.mailboxSeq)).toEqual([seq(10n)]);
  });

  it('… and by a read-side inspection the same way', async () => {
    const { clock, store } = setup();
    const day0 = clock.nowMs();
    await store.appendBatch([input(seq(2n), day0), input(seq(8n), day0)]);
    await clock.set(entryExpiry(day0, DAY_MS));
    const err = await store.rangeScan(T, U, epochStartSeq(EPOCH), TOP, 10).catch((e: unknown) => e);
    expect((err as CursorExpiredError).boundary).toBe(seq(8n));
  });
});
