import { FrontierBoard, frontierAbove } from './frontier-board';
import { waitForFrontier } from './frontier-wait';

const ALICE = 't:alice';
const wait = (board: FrontierBoard, scanned: bigint | null, timeoutMs = 1_000, signal?: AbortSignal) =>
  waitForFrontier(board, { shard: 0, scanned, userKey: ALICE, timeoutMs, signal });

describe('frontierAbove', () => {
  it('orders null below every offset', () => {
    expect([frontierAbove(0n, null), frontierAbove(null, null), frontierAbove(null, 0n), frontierAbove(2n, 1n), frontierAbove(1n, 1n)]).toEqual([true, false, false, true, false]);
  });
});

describe('FrontierBoard', () => {
  it('knows frontiers only of owned shards, never lowers them, and forgets a shard when it is released', () => {
    const b = new FrontierBoard();
    b.learn(0, 5n);
    expect(b.known(0)).toBeUndefined();
    b.own([0, 1]);
    b.learn(0, 5n);
    b.learn(0, 3n);
    b.advance(0, 4n, new Set());
    expect(b.known(0)).toBe(5n);
    b.advance(0, 9n, new Set());
    expect(b.known(0)).toBe(9n);
    b.own([1]);
    expect([b.owns(0), b.known(0)]).toEqual([false, undefined]);
  });
});

describe('waitForFrontier', () => {
  it('wakes on a page that gave the user an entry; pages for others only move it along', async () => {
    const b = new FrontierBoard();
    b.own([0]);
    b.learn(0, 1n);
    let end: string | null = null;
    const w = wait(b, 1n).then((e) => (end = e));
    b.advance(0, 3n, new Set(['t:bob']));
    await Promise.resolve();
    expect([end, b.waiterCount(0)]).toEqual([null, 1]);
    b.advance(0, 4n, new Set([ALICE]));
    await w;
    expect([end, b.waiterCount(0)]).toEqual(['advanced', 0]);
  });

  it('wakes when it missed an advance (prior above what it read) or the users are unknown', async () => {
    const b = new FrontierBoard();
    b.own([0]);
    b.learn(0, 1n);
    const missed = wait(b, 0n);
    expect(await missed).toBe('advanced');
    const unknown = wait(b, 1n);
    b.advance(0, 2n, null);
    expect(await unknown).toBe('advanced');
  });

  it('ends at the timeout, on abort, on release of the shard and on close, leaving no listener', async () => {
    const b = new FrontierBoard();
    b.own([0]);
    expect(await wait(b, null, 20)).toBe('timeout');
    const ac = new AbortController();
    const aborted = wait(b, null, 5_000, ac.signal);
    ac.abort();
    expect(await aborted).toBe('aborted');
    const released = wait(b, null, 5_000);
    b.own([]);
    expect(await released).toBe('advanced');
    const closed = wait(b, null, 5_000);
    b.close();
    expect(await closed).toBe('closed');
    expect(await wait(b, null, 5_000)).toBe('closed');
    expect(b.waiterCount()).toBe(0);
  });
});
