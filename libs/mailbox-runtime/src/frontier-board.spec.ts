import { FrontierBoard, frontierAbove } from './frontier-board';
import { waitForFrontier } from './frontier-wait';

const ALICE = 't:alice';
const wait = (board: FrontierBoard, scanned: bigint | null, timeoutMs = 1_000, signal?: AbortSignal) =>
  waitForFrontier(board, { shard: 0, scanned, userKey: ALICE, timeoutMs, signal });

describe('frontierAbove', () => {
  it('orders null below every offset', () => {
    expect([frontierAbove(0n, null), frontierAbove(null, null), frontierAbove(null, 0n), frontierAbove(2n, 1n), frontierAbove(1n, 1n)]).toEqual([
      true,
      false,
      false,
      true,
      false,
    ]);
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

describe('FrontierBoard.quietSince (a cursor proven current without a read)', () => {
  const BOB = 't:bob';

  it('knows nothing of a shard it does not own or whose frontier it has not seen', () => {
    const b = new FrontierBoard();
    expect(b.quietSince(0, ALICE, 5n)).toBe(false);
    b.own([0]);
    expect(b.quietSince(0, ALICE, 5n)).toBe(false);
  });

  it('is quiet for a user no page has given an entry since the cursor, from the frontier it started to follow', () => {
    const b = new FrontierBoard();
    b.own([0]);
    b.learn(0, 5n);
    expect([b.quietSince(0, ALICE, 5n), b.quietSince(0, ALICE, 4n), b.quietSince(0, ALICE, null)]).toEqual([true, false, false]);
    b.advance(0, 7n, new Set([ALICE]));
    expect([b.quietSince(0, ALICE, 5n), b.quietSince(0, ALICE, 6n), b.quietSince(0, ALICE, 7n), b.quietSince(0, BOB, 5n)]).toEqual([false, false, true, true]);
    b.advance(0, 9n, new Set([BOB]));
    expect([b.quietSince(0, ALICE, 7n), b.quietSince(0, BOB, 7n), b.quietSince(0, BOB, 9n)]).toEqual([true, false, true]);
  });

  it('starts again from the frontier after an advance whose users are unknown or a frontier learned from the store', () => {
    const b = new FrontierBoard();
    b.own([0]);
    b.learn(0, 5n);
    b.advance(0, 9n, null);
    expect([b.quietSince(0, ALICE, 7n), b.quietSince(0, ALICE, 9n)]).toEqual([false, true]);
    b.learn(0, 12n);
    expect([b.quietSince(0, ALICE, 9n), b.quietSince(0, ALICE, 12n)]).toEqual([false, true]);
  });

  it('forgets a released shard and follows it anew once owned again', () => {
    const b = new FrontierBoard();
    b.own([0]);
    b.learn(0, 5n);
    b.own([]);
    expect(b.quietSince(0, ALICE, 5n)).toBe(false);
    b.own([0]);
    expect(b.quietSince(0, ALICE, 5n)).toBe(false);
    b.learn(0, 6n);
    expect([b.quietSince(0, ALICE, 5n), b.quietSince(0, ALICE, 6n)]).toEqual([false, true]);
  });

  it('bounds the users it remembers: one forgotten counts as given an entry at the highest frontier forgotten', () => {
    // 4 users over the 2 owned shards: 2 per shard
    const b = new FrontierBoard({ trackedUsers: 4 });
    b.own([0, 1]);
    b.learn(0, 0n);
    b.advance(0, 1n, new Set(['t:u1']));
    b.advance(0, 2n, new Set(['t:u2']));
    b.advance(0, 3n, new Set(['t:u3'])); // forgets u1 (touched at 1)
    b.advance(0, 4n, new Set(['t:u2'])); // u2 becomes the latest
    b.advance(0, 5n, new Set(['t:u4'])); // forgets u3 (touched at 3)
    expect([
      b.quietSince(0, 't:u1', 2n),
      b.quietSince(0, 't:u3', 2n),
      b.quietSince(0, 't:u3', 3n),
      b.quietSince(0, 't:u9', 2n),
      b.quietSince(0, 't:u9', 3n),
    ]).toEqual([false, false, true, false, true]);
    expect([b.quietSince(0, 't:u2', 3n), b.quietSince(0, 't:u2', 4n), b.quietSince(0, 't:u4', 4n)]).toEqual([false, true, false]);
  });
});

describe('an advance that does not continue the known frontier', () => {
  it('counts as unknown users: waiters wake and quietSince starts again', async () => {
    const b = new FrontierBoard();
    b.own([0]);
    b.learn(0, 4n);
    const w = wait(b, 4n);
    // offsets 5…7 were applied by another member; this page is 8…9 and gave bob an entry
    b.advance(0, 9n, new Set(['t:bob']), 8n);
    expect(await w).toBe('advanced');
    expect([b.quietSince(0, ALICE, 4n), b.quietSince(0, ALICE, 9n)]).toEqual([false, true]);
    // a page that continues it (or overlaps it) keeps the users known
    b.advance(0, 11n, new Set(['t:bob']), 10n);
    b.advance(0, 13n, new Set(['t:bob']), 11n);
    expect(b.quietSince(0, ALICE, 9n)).toBe(true);
  });

  it('from nothing applied, only a page from offset 0 continues it', () => {
    const b = new FrontierBoard();
    b.own([0, 1]);
    b.learn(0, null);
    b.learn(1, null);
    b.advance(0, 3n, new Set(['t:bob']), 0n);
    b.advance(1, 3n, new Set(['t:bob']), 2n);
    expect([b.quietSince(0, ALICE, null), b.quietSince(1, ALICE, null), b.quietSince(1, ALICE, 3n)]).toEqual([true, false, true]);
  });
});
