import { WorkPool } from './work-pool';

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('WorkPool', () => {
  it('runs at most `workers` jobs at once, including jobs pushed by running jobs, and finishes all of them', async () => {
    const pool = new WorkPool(3);
    let running = 0;
    let peak = 0;
    const ran: number[] = [];
    const job = (n: number) => async (): Promise<void> => {
      running += 1;
      peak = Math.max(peak, running);
      await tick();
      ran.push(n);
      if (n < 20) pool.push(job(n + 20));
      running -= 1;
    };
    for (let n = 0; n < 20; n++) pool.push(job(n));
    await pool.done();
    expect(peak).toBe(3);
    expect(ran.sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i));
  });

  it('after a failure starts nothing new and rejects with the first error once running jobs settle', async () => {
    const pool = new WorkPool(2);
    const started: number[] = [];
    for (let n = 0; n < 10; n++) {
      pool.push(async () => {
        started.push(n);
        await tick();
        if (n === 1) throw new Error('first');
        if (n === 2) throw new Error('second');
      });
    }
    await expect(pool.done()).rejects.toThrow('first');
    expect(started).toEqual([0, 1, 2]);
    expect(pool.failed).toBe(true);
  });

  it('a job weighing k holds k workers (heavier than the capacity: the whole capacity)', async () => {
    const pool = new WorkPool(4);
    let held = 0;
    let peak = 0;
    const job = (w: number) => async (): Promise<void> => {
      held += w;
      peak = Math.max(peak, held);
      await tick();
      held -= w;
    };
    for (let n = 0; n < 12; n++) pool.push(job(3), 3);
    await pool.done();
    expect(peak).toBe(3);
    pool.push(job(4), 9);
    pool.push(job(1));
    await pool.done();
    expect(peak).toBe(4);
  });

  it('an empty pool is done at once', async () => {
    await expect(new WorkPool(4).done()).resolves.toBeUndefined();
  });
});
