import { CursorExpiredError, DAY_MS, composeMailboxSeq, dispatchDedupeExpiry, entryExpiry, epochStartSeq } from '@qim/store-core';
import { ManualClock } from '@qim/store-core/testing';
import type { DispatchPage, DispatchRecord, Id128 } from '@qim/store-core';
import { MemoryMailboxBackend } from './memory-mailbox-backend';
import { MemoryMailboxStore } from './memory-mailbox-store';

/**
 * The Memory mailbox drops expired rows physically (a bounded, time-throttled sweep from `appendBatch`
 * and `applyPage`), like a server's TTLs: entries at their expiry, dispatch-index rows at their dedupe
 * expiry, bucket proofs only once released (ADR-0022 §6: never while a ledger item refers to them).
 */
const EPOCH = 2;
const SHARD = 5;
const T = '0a0b0c0d0e0f00010203040506070809' as Id128;
const id = (n: number): Id128 => n.toString(16).padStart(32, '0') as Id128;
const USERS = [id(0x101), id(0x102)];
const LATE = id(0x1ff);
const TOP = composeMailboxSeq(EPOCH, (1n << 47n) - 2n);
const MINUTE = 60_000n;

function record(n: number, createdAt: bigint, recipients: readonly Id128[]): DispatchRecord {
  return {
    dispatchId: id(0x5000 + n),
    tenantId: T,
    shard: SHARD,
    messageId: id(0x6000 + n),
    conversationId: id(0x7000),
    seq: BigInt(n),
    createdAt,
    recipients: [...recipients].sort(),
    events: [{ ordinal: 0, eventId: id(0x8000 + n), payload: Buffer.from(`m${n}`) }],
  };
}

function page(from: bigint, records: readonly DispatchRecord[]): DispatchPage {
  return { fromOffset: from, toOffset: from + BigInt(records.length) - 1n, records: records.map((r, i) => ({ offset: from + BigInt(i), record: r })) };
}

function setup(sweepMaxRows?: number) {
  const clock = new ManualClock(20_100n * DAY_MS + 3_600_000n);
  const backend = new MemoryMailboxBackend();
  const gc = { entryRetentionMs: DAY_MS, dispatchDedupeMs: 2n * DAY_MS };
  const store = new MemoryMailboxStore({ shardEpoch: { shard: SHARD, epoch: EPOCH }, gc, clock, backend, sweepMaxRows });
  const sizes = () => ({ entries: backend.entries.physicalSize(), index: backend.dispatchIndex.physicalSize(), proofs: backend.proofs.physicalSize() });
  return { clock, backend, store, sizes, gc };
}

describe('MemoryMailboxStore drops expired rows', () => {
  it('entries at their expiry and dispatch-index rows at their dedupe expiry leave the maps', async () => {
    const { clock, store, sizes, gc } = setup();
    const day0 = clock.nowMs();
    await store.applyPage(
      page(
        0n,
        [1, 2, 3, 4, 5].map((n) => record(n, day0, USERS)),
      ),
    );
    expect(sizes()).toEqual({ entries: 10, index: 5, proofs: 2 });

    // past the entries' expiry (the dedupe window is longer): the next write sweeps the entries
    await clock.set(entryExpiry(day0, gc.entryRetentionMs) + MINUTE);
    await store.applyPage(page(5n, [record(6, clock.nowMs(), [LATE])]));
    expect(sizes().entries).toBe(1);
    expect(sizes().index).toBe(6);

    // past the dedupe expiry of the first five: their index rows leave too
    await clock.set(dispatchDedupeExpiry(day0, gc.dispatchDedupeMs) + MINUTE);
    await store.appendBatch([
      {
        tenantId: T,
        userId: LATE,
        mailboxSeq: composeMailboxSeq(EPOCH, 100n),
        createdAt: clock.nowMs(),
        events: [{ ordinal: 0, eventId: id(9), payload: Buffer.from('x') }],
      },
    ]);
    expect(sizes().index).toBe(1);
  });

  it('a bucket proof stays while its ledger item refers to it, and leaves one release lifetime after its day is consumed', async () => {
    const { clock, store, sizes } = setup();
    const day0 = clock.nowMs();
    await store.applyPage(page(0n, [record(1, day0, [USERS[0]!]), record(2, day0, [USERS[0]!])]));
    const lastSeq = composeMailboxSeq(EPOCH, 1n);

    // months later, the user never read: the entries are gone, the proof is still referenced
    const t90 = day0 + 90n * DAY_MS;
    await clock.set(t90);
    await store.applyPage(page(2n, [record(3, t90, [LATE])]));
    expect(sizes().entries).toBe(1);
    expect(sizes().proofs).toBe(2);

    // the read consumes the day at the proof's max seq (reads unchanged), which releases the proof
    const err = await store.rangeScan(T, USERS[0]!, epochStartSeq(EPOCH), TOP, 10).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CursorExpiredError);
    expect((err as CursorExpiredError).boundary).toBe(lastSeq);
    await clock.advance(MINUTE * 2n);
    await store.applyPage(page(3n, [record(4, t90, [LATE])]));
    expect(sizes().proofs).toBe(2); // released, not yet expired

    await clock.advance(DAY_MS);
    await store.applyPage(page(4n, [record(5, t90, [LATE])]));
    expect(sizes().proofs).toBe(1); // only LATE's day
    expect((await store.rangeScan(T, USERS[0]!, lastSeq, TOP, 10)).entries).toEqual([]);
  });

  it('one sweep drops at most sweepMaxRows rows; the next call continues', async () => {
    const { clock, store, sizes, gc } = setup(4);
    const day0 = clock.nowMs();
    await store.applyPage(
      page(
        0n,
        [1, 2, 3, 4, 5].map((n) => record(n, day0, USERS)),
      ),
    );
    await clock.set(entryExpiry(day0, gc.entryRetentionMs) + MINUTE);
    await store.applyPage(page(5n, [record(6, clock.nowMs(), [LATE])]));
    expect(sizes().entries).toBe(10 - 4 + 1);
    await store.applyPage(page(6n, [record(7, clock.nowMs(), [LATE])]));
    expect(sizes().entries).toBe(10 - 8 + 2);
    await store.applyPage(page(7n, [record(8, clock.nowMs(), [LATE])]));
    expect(sizes().entries).toBe(3);
  });
});
