import { InvalidInputError } from '@qim/store-core';
import { InFlightLimit } from './in-flight-limit';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('InFlightLimit', () => {
  it('never runs more than `limit` at once; 500 tasks through a limit of 8 all complete', async () => {
    const limit = new InFlightLimit(8);
    let running = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 500 }, () =>
        limit.run(async () => {
          running += 1;
          peak = Math.max(peak, running);
          await tick();
          running -= 1;
        }),
      ),
    );
    expect(peak).toBe(8);
    expect(limit.peak).toBe(8);
  });

  it('hands a freed slot to the oldest reader before any waiting writer, writers in arrival order', async () => {
    const limit = new InFlightLimit(1);
    const gate = deferred();
    const order: string[] = [];
    const holder = limit.run(() => gate.promise);
    const tasks = [
      limit.run(async () => void order.push('w1')),
      limit.run(async () => void order.push('w2')),
      limit.run(async () => void order.push('r1'), true),
      limit.run(async () => void order.push('r2'), true),
    ];
    await tick();
    expect(order).toEqual([]);
    gate.resolve();
    await Promise.all([holder, ...tasks]);
    expect(order).toEqual(['r1', 'r2', 'w1', 'w2']);
  });

  it('releases the slot when the task fails', async () => {
    const limit = new InFlightLimit(1);
    await expect(limit.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await limit.run(async () => 7)).toBe(7);
  });

  it.each([0, -1, 1.5, 1025])('refuses a bound of %p', (n) => {
    expect(() => new InFlightLimit(n)).toThrow(InvalidInputError);
  });
});
