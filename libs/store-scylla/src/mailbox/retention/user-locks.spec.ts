import { UserLocks } from './user-locks';

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('UserLocks', () => {
  it('runs the entries of a user named twice one after the other, even after a failure; other users run at once', async () => {
    const locks = new UserLocks(['a', 'b', 'a']);
    const log: string[] = [];
    const step =
      (name: string, fail = false) =>
      async (): Promise<void> => {
        log.push(`${name}:start`);
        await tick();
        log.push(`${name}:end`);
        if (fail) throw new Error(name);
      };
    const runs = [locks.run('a', step('a1', true)).catch(() => undefined), locks.run('a', step('a2')), locks.run('b', step('b1'))];
    await Promise.all(runs);
    expect(log.indexOf('a2:start')).toBeGreaterThan(log.indexOf('a1:end'));
    expect(log.indexOf('b1:start')).toBeLessThan(log.indexOf('a1:end'));
  });
});
