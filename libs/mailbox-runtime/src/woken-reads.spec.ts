import { dispatchRecordsOf } from './router-plan';
import type { Id128, MailboxStore, RangeScanPage } from '@qim/store-core';
import { CursorExpiredError, composeMailboxSeq, seqForWatermark } from '@qim/store-core';
import { ManualClock } from '@qim/store-core/testing';
import { memoryMailboxBackend } from '@qim/backends';
import { FrontierBoard, userKeyOf } from './frontier-board';
import { MailboxReader } from './mailbox-reader';
import type { SyncPage } from './mailbox-reader';
import { specMessage } from './testing/spec-message';

const hex = (n: number): Id128 => n.toString(16).padStart(32, '0') as Id128;
const T = hex(0xa1);
const sender = hex(0x5e);
const EPOCH = 2;
const WAITERS = 12;
const clock = new ManualClock(1_700_000_000_000n);

/** Calls of the range-scan methods on a real store (the store itself answers; nothing is faked). */
interface Calls {
  rangeScan: number;
  rangeScanMany: number[];
}
function counted(store: MailboxStore, calls: Calls): MailboxStore {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function') return v;
      if (prop === 'rangeScan') return (...a: unknown[]) => ((calls.rangeScan += 1), (v as (...x: unknown[]) => unknown).apply(target, a));
      if (prop === 'rangeScanMany')
        return (reads: unknown[]) => (calls.rangeScanMany.push(reads.length), (v as (...x: unknown[]) => unknown).call(target, reads));
      return v;
    },
  });
}

const until = async (what: string, ok: () => boolean, ms = 10_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
};

async function setup() {
  const backend = memoryMailboxBackend({ epoch: EPOCH, gc: { entryRetentionMs: 86_400_000n, dispatchDedupeMs: 8n * 86_400_000n }, applyConcurrency: 1 }, clock);
  const real = await backend.storeFor(0);
  const calls: Calls = { rangeScan: 0, rangeScanMany: [] };
  const board = new FrontierBoard();
  board.own([0]);
  const wokenCalls: number[] = [];
  const store = counted(real, calls); // one object per shard, as the backend's store cache gives
  const reader = new MailboxReader({ storeFor: async () => store, shardCount: 1, epoch: EPOCH, board, onWokenRead: (n) => wokenCalls.push(n) });
  /** Applies one page from `offset`, a message per recipient list at consecutive offsets, and tells the board, as the shard worker does. */
  const deliver = async (offset: bigint, ...messages: (readonly Id128[])[]): Promise<void> => {
    const records = messages.map((users, i) => {
      const at = offset + BigInt(i);
      return { offset: at, record: dispatchRecordsOf({ record: specMessage(T, sender, at + 1n, clock.nowMs()), recipients: users }, 1)[0]! };
    });
    const report = await real.applyPage({ fromOffset: offset, toOffset: offset + BigInt(messages.length - 1), records });
    board.advance(0, report.frontier, new Set(messages.flat().map((u) => userKeyOf(T, u))), offset);
  };
  return { real, calls, board, reader, deliver, wokenCalls };
}

/**
 * ADR-0041: the long polls one frontier advance wakes read the store together — one `rangeScanMany`
 * for all of them — and each gets what its own scan would have answered.
 */
describe('woken long polls read the store in one call', () => {
  it(`${WAITERS} waiters woken by one page: one store call, each answer its own scan's (entries, cursor, budget, CURSOR_EXPIRED)`, async () => {
    const { real, calls, board, reader, deliver, wokenCalls } = await setup();
    const users = Array.from({ length: WAITERS }, (_, i) => hex(0x100 + i));
    await deliver(0n, [hex(0xf00)]); // the shard has a frontier; the waiters have nothing yet
    const cursors = await Promise.all(
      users.map((u) => reader.sync({ tenantId: T, actingUser: u, userId: u, after: null, limit: 10, maxBytes: 1 << 20, waitMs: 0 })),
    );
    for (const c of cursors) expect(c.entries).toEqual([]);
    calls.rangeScan = 0;
    // User 1 gets two messages in the page and asks for one event: its page is cut. User 0's cursor is trimmed away.
    const expired = users[0]!;
    await reader.truncate(T, expired, expired, composeMailboxSeq(EPOCH, 1n));
    const limits = users.map((_, i) => (i === 1 ? 1 : 10));

    const answers = new Map<Id128, SyncPage | Error>();
    const polls = users.map((u, i) =>
      reader.sync({ tenantId: T, actingUser: u, userId: u, after: cursors[i]!.nextAfter, limit: limits[i]!, maxBytes: 1 << 20, waitMs: 60_000 }).then(
        (p) => void answers.set(u, p),
        (e: Error) => void answers.set(u, e),
      ),
    );
    await until('every waiter waiting', () => board.waiterCount(0) === WAITERS);
    expect(calls).toEqual({ rangeScan: 0, rangeScanMany: [] }); // the board proved every cursor current: no read before the wake-up

    await deliver(1n, users, [users[1]!]); // one page, every waiter woken in one turn
    await Promise.all(polls);
    expect(calls.rangeScanMany).toEqual([WAITERS]);
    expect(calls.rangeScan).toBe(0);
    expect(wokenCalls).toEqual([WAITERS]);

    // Each answer is what the user's own scan answers (same range, same budget).
    const upTo = seqForWatermark(EPOCH, 2n);
    const err = answers.get(expired);
    expect(err).toBeInstanceOf(CursorExpiredError);
    for (const [i, u] of users.entries()) {
      if (u === expired) continue;
      const page = answers.get(u) as SyncPage;
      const own: RangeScanPage = await real.rangeScan(T, u, cursors[i]!.nextAfter, page.upTo, limits[i]!, 1 << 20);
      expect(page.upTo).toBe(upTo);
      expect({ entries: page.entries, next: page.nextAfter, hasMore: page.hasMore }).toEqual(own);
      expect(page.entries.map((e) => e.mailboxSeq)).toEqual([composeMailboxSeq(EPOCH, 1n)]);
      expect(page.hasMore).toBe(i === 1); // the cut page says so; the others end at up_to
      if (i !== 1) expect(page.nextAfter).toBe(upTo);
    }
  });

  it('waiters woken in different turns are read in different calls; a lone one with a plain rangeScan', async () => {
    const { calls, board, reader, deliver } = await setup();
    const [a, b] = [hex(0x201), hex(0x202)];
    await deliver(0n, [hex(0xf00)]);
    const [ca, cb] = await Promise.all(
      [a, b].map((u) => reader.sync({ tenantId: T, actingUser: u, userId: u, after: null, limit: 10, maxBytes: 1 << 20, waitMs: 0 })),
    );
    calls.rangeScan = 0;
    const pa = reader.sync({ tenantId: T, actingUser: a, userId: a, after: ca!.nextAfter, limit: 10, maxBytes: 1 << 20, waitMs: 60_000 });
    const pb = reader.sync({ tenantId: T, actingUser: b, userId: b, after: cb!.nextAfter, limit: 10, maxBytes: 1 << 20, waitMs: 60_000 });
    await until('both waiting', () => board.waiterCount(0) === 2);
    await deliver(1n, [a]);
    expect((await pa).entries).toHaveLength(1);
    await deliver(2n, [b]);
    expect((await pb).entries).toHaveLength(1);
    expect(calls).toEqual({ rangeScan: 2, rangeScanMany: [] });
  });
});
