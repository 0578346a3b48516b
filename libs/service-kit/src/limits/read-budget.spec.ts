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

  it('a failing read frees its share; bad settings are refused', async () => {
    const budget = new ReadBudget({ totalBytes: 10, waitMs: 0 });
    await expect(budget.run(10, async () => Promise.reject(new Error('store down')))).rejects.toThrow('store down');
    expect(budget.inUseBytes).toBe(0);
    expect(() => new ReadBudget({ totalBytes: 0, waitMs: 0 })).toThrow();
    expect(() => new ReadBudget({ totalBytes: 10, waitMs: -1 })).toThrow();
  });
});
