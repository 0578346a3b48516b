import { createConnection, createServer, type Server, type Socket } from 'node:net';
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
    jest.runOnlyPendingTimers(); // the refusal is decided after the loop's I/O (setImmediate)
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

  it('reads waiting behind others split a freed share instead of taking it whole one after another', async () => {
    const budget = new ReadBudget({ totalBytes: 400, waitMs: 1_000, minShareBytes: 10 });
    const first = heldRead();
    const held = [first, heldRead(), heldRead(), heldRead()];
    const running = held.map((h) => budget.run(100, h.read));
    const granted: number[] = [];
    const waiting = Array.from({ length: 8 }, () => heldRead());
    const pw = waiting.map((w) => budget.run(100, async (bytes) => (granted.push(bytes), w.read())));
    first.release();
    await running[0];
    await new Promise((r) => setImmediate(r));
    // 100 bytes freed, 8 reads waiting: each gets an eighth (12), not the first one all 100.
    expect(granted).toEqual([12, 12, 12, 12, 12, 12, 12, 12]);
    expect(budget.inUseBytes).toBe(396);
    for (const h of [...held.slice(1), ...waiting]) h.release();
    await Promise.all([...running, ...pw]);
    expect(budget.inUseBytes).toBe(0);
  });

  describe('after the event loop was held up past the wait', () => {
    let server: Server;
    let client: Socket;
    let peer: Socket;
    beforeEach(async () => {
      server = createServer();
      const accepted = new Promise<Socket>((r) => server.once('connection', r));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const port = (server.address() as { port: number }).port;
      client = createConnection(port, '127.0.0.1');
      await new Promise((r) => client.once('connect', r));
      peer = await accepted;
    });
    afterEach(async () => {
      client.destroy();
      peer.destroy();
      await new Promise((r) => server.close(r));
    });

    it('a waiting read is admitted when a reply already received frees a share, not refused because its timer ran first', async () => {
      const budget = new ReadBudget({ totalBytes: 100, waitMs: 20 });
      // The read in flight ends when its reply arrives on the socket (as a store reply does).
      const inFlight = budget.run(100, () => new Promise<string>((r) => client.once('data', () => r('first'))));
      const waiting = budget.run(100, async () => 'second').catch((e: unknown) => e);
      peer.write('reply'); // in the socket's buffer before the loop stalls
      const until = Date.now() + 100;
      while (Date.now() < until); // the loop is held up: the waiter's timer and the reply are both due
      expect(await inFlight).toBe('first');
      expect(await waiting).toBe('second');
    });
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
