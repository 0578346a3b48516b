import { FrontierBoard } from './frontier-board';
import { waitForFrontier } from './frontier-wait';
import type { WaitEnd } from './frontier-wait';

const WAITERS = 1_000;

/** `WAITERS` waits on shard 0 from frontier `scanned`, each with its own user; returns their ends as they come. */
function waiters(board: FrontierBoard, timeoutMs = 5_000, scanned = 1n): { ends: (WaitEnd | null)[]; all: Promise<WaitEnd[]> } {
  const ends: (WaitEnd | null)[] = Array.from({ length: WAITERS }, () => null);
  const all = Promise.all(
    ends.map((_, i) =>
      waitForFrontier(board, { shard: 0, scanned, userKey: `t:u${i}`, timeoutMs }).then((e) => {
        ends[i] = e;
        return e;
      }),
    ),
  );
  return { ends, all };
}
const woken = (ends: readonly (WaitEnd | null)[]): number => ends.filter((e) => e === 'advanced').length;
const flush = (): Promise<void> => new Promise((r) => setImmediate(r));

/**
 * Issue 28 item 8: an advance whose users are unknown (`users: null`: a frontier learned from the
 * store, a page after a gap, the shared poller's read of a shard applied elsewhere) must not send
 * every waiter of the shard to the store at the same instant: the board wakes at most `wakeBatch`
 * of them at once and the rest in later batches; a page with known users wakes only those users.
 */
describe('wake-ups are spread or targeted', () => {
  it.each([
    ['an owned shard (advance, users unknown)', (b: FrontierBoard) => b.advance(0, 2n, null)],
    ['an owned shard (frontier learned from the store)', (b: FrontierBoard) => b.learn(0, 2n)],
    ['a shard applied elsewhere (the shared poller read a higher frontier)', (b: FrontierBoard) => b.announce(0, 2n)],
  ])('%s: at most wakeBatch waiters wake at once, every one within a few gaps', async (_what, rise) => {
    const board = new FrontierBoard({ wakeBatch: 100, wakeGapMs: 10 });
    if (!_what.includes('elsewhere')) {
      board.own([0]);
      board.learn(0, 1n);
    } else board.announce(0, 1n);
    const { ends, all } = waiters(board);
    expect(board.waiterCount(0)).toBe(WAITERS);
    rise(board);
    await Promise.resolve();
    await Promise.resolve();
    expect(woken(ends)).toBe(100);
    expect(board.waiterCount(0)).toBe(WAITERS - 100);
    const t0 = Date.now();
    expect(await all).toEqual(Array.from({ length: WAITERS }, () => 'advanced'));
    // 10 batches, 9 gaps of 10 ms: all woken well before their 5 s timeout.
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect([board.waiterCount(0), board.deferredDeliveries]).toEqual([0, 0]);
  });

  it('a page with known users wakes only them; the others keep waiting, and a later page for them wakes them', async () => {
    const board = new FrontierBoard({ wakeBatch: 100, wakeGapMs: 300 }); // a gap no loaded machine's setImmediate outlasts
    board.own([0]);
    board.learn(0, 1n);
    const { ends, all } = waiters(board);
    board.advance(0, 2n, new Set(['t:u7', 't:u993']));
    await flush();
    expect(ends.flatMap((e, i) => (e === null ? [] : [i]))).toEqual([7, 993]);
    board.advance(0, 3n, new Set(Array.from({ length: WAITERS }, (_, i) => `t:u${i}`)));
    await flush();
    expect(woken(ends)).toBeLessThanOrEqual(2 + 100);
    expect(await all).toEqual(Array.from({ length: WAITERS }, () => 'advanced'));
  });

  it('a waiter whose deferred wake-up has not come yet still ends at its own timeout, and close wakes every waiter at once', async () => {
    const board = new FrontierBoard({ wakeBatch: 10, wakeGapMs: 1_000 });
    board.own([0]);
    board.learn(0, 1n);
    const { ends, all } = waiters(board, 100);
    board.advance(0, 2n, null);
    await flush();
    expect(woken(ends)).toBe(10);
    const t0 = Date.now();
    const got = await all;
    expect(Date.now() - t0).toBeLessThan(900);
    expect(got.filter((e) => e === 'timeout')).toHaveLength(WAITERS - 10);

    const more = waiters(board, 5_000, 2n);
    board.advance(0, 3n, null);
    await flush();
    board.close();
    expect((await more.all).filter((e) => e === 'closed')).toHaveLength(WAITERS - 10);
    expect(board.deferredDeliveries).toBe(0);
  });
});
