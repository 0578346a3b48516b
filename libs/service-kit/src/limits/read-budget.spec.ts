import { ReadBudget, ReadBudgetSpentError } from './read-budget';

/** A read that holds its share until `release()` is called. */
function heldRead(): { read: () => Promise<string>; release: () => void } {
  let release = (): void => undefined;
  const done = new Promise<void>((r) => (release = r));
  return { read: async () => (await done, 'read'), release };
}

describe('ReadBudget', () => {
  afterEach(() => jest.useRealTimers());

  it('admits reads while their shares fit, refuses one beyond at once when the wait is 0, and frees shares when reads end', async () => {
    const budget = new ReadBudget({ totalBytes: 100, waitMs: 0 });
    const a = heldRead();
    const b = heldRead();
    const pa = budget.run(60, a.read);
    const pb = budget.run(40, b.read);
    expect(budget.inUseBytes).toBe(100);
    const refused = await budget.run(1, async () => 'never').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ReadBudgetSpentError);
    expect(refused).toMatchObject({ code: 'UNAVAILABLE', retryAfterSeconds: 1 });
    a.release();
    b.release();
    expect(await Promise.all([pa, pb])).toEqual(['read', 'read']);
    expect(budget.inUseBytes).toBe(0);
    expect(await budget.run(100, async () => 'ok')).toBe('ok');
  });

  it('a read larger than the whole budget takes all of it (runs alone) instead of never running', async () => {
    const budget = new ReadBudget({ totalBytes: 100, waitMs: 0 });
    const big = heldRead();
    const p = budget.run(10_000, big.read);
    expect(budget.inUseBytes).toBe(100);
    await expect(budget.run(1, async () => 'x')).rejects.toBeInstanceOf(ReadBudgetSpentError);
    big.release();
    await p;
  });

  it('a waiting read runs when shares free up within the wait, in arrival order; past the wait it is refused', async () => {
    jest.useFakeTimers();
    const budget = new ReadBudget({ totalBytes: 100, waitMs: 50 });
    const a = heldRead();
    const pa = budget.run(100, a.read);
    const order: string[] = [];
    const pb = budget.run(70, async () => void order.push('b'));
    const pc = budget.run(30, async () => void order.push('c'));
    a.release();
    await pa;
    await Promise.all([pb, pc]);
    expect(order).toEqual(['b', 'c']);

    const d = heldRead();
    const pd = budget.run(100, d.read);
    const pe = budget.run(1, async () => 'e').catch((e: unknown) => e);
    jest.advanceTimersByTime(50);
    expect(await pe).toBeInstanceOf(ReadBudgetSpentError);
    d.release();
    await pd;
    expect(budget.inUseBytes).toBe(0);
  });

  it('a read whose whole share is not free takes the free part when it is at least the smallest page, and is told the bytes it got', async () => {
    const shrunk: number[] = [];
    const budget = new ReadBudget({ totalBytes: 100, waitMs: 0, minShareBytes: 20, onShrunk: () => shrunk.push(budget.inUseBytes) });
    const a = heldRead();
    const pa = budget.run(70, a.read);
    const granted: number[] = [];
    const b = heldRead();
    const pb = budget.run(50, async (bytes) => (granted.push(bytes), b.read()));
    await new Promise((r) => setImmediate(r));
    expect(granted).toEqual([30]);
    expect(budget.inUseBytes).toBe(100);
    expect(shrunk).toEqual([100]);
    // Nothing is free: below the smallest page, a read is refused as before.
    await expect(budget.run(50, async () => 'never')).rejects.toBeInstanceOf(ReadBudgetSpentError);
    b.release();
    await pb;
    // 30 free, a page of 10 asks less than the smallest page: it gets all it asked.
    expect(await budget.run(10, async (bytes) => bytes)).toBe(10);
    a.release();
    await pa;
    expect(budget.inUseBytes).toBe(0);
    expect(shrunk).toHaveLength(1);
  });

  it('a free part below the smallest page is not granted: the read waits, and is admitted with what is free once that reaches the smallest page', async () => {
    jest.useFakeTimers();
    const budget = new ReadBudget({ totalBytes: 100, waitMs: 50, minShareBytes: 40 });
    const a = heldRead();
    const b = heldRead();
    const pa = budget.run(50, a.read);
    const pb = budget.run(40, b.read);
    const granted: number[] = [];
    const pc = budget.run(90, async (bytes) => void granted.push(bytes));
    await Promise.resolve();
    expect([granted, budget.inUseBytes]).toEqual([[], 90]);
    b.release();
    await pb;
    await pc;
    expect(granted).toEqual([50]);
    a.release();
    await pa;
    expect(budget.inUseBytes).toBe(0);
  });

  it('a failing read frees its share; bad settings are refused', async () => {
    const budget = new ReadBudget({ totalBytes: 10, waitMs: 0 });
    await expect(budget.run(10, async () => Promise.reject(new Error('store down')))).rejects.toThrow('store down');
    expect(budget.inUseBytes).toBe(0);
    expect(() => new ReadBudget({ totalBytes: 0, waitMs: 0 })).toThrow();
    expect(() => new ReadBudget({ totalBytes: 10, waitMs: -1 })).toThrow();
    expect(() => new ReadBudget({ totalBytes: 10, waitMs: 0, minShareBytes: 0 })).toThrow(/minShareBytes/);
  });
});
