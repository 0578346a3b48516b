import { UnavailableError } from '@qim/store-core';
import type { Redis } from 'ioredis';
import { RedisServerProcess } from '../testing/redis-server-process';
import { connectRedis } from './connect-redis';
import { RedisIo } from './redis-io';

jest.setTimeout(60_000);

/** Settles `p` or says it was still pending after `ms` (the test's own watchdog, far above the bound). */
async function settledWithin<T>(p: Promise<T>, ms: number): Promise<{ ok: true; value: T } | { ok: false; error: unknown } | 'pending'> {
  let timer: NodeJS.Timeout | undefined;
  const watchdog = new Promise<'pending'>((resolve) => (timer = setTimeout(() => resolve('pending'), ms)));
  try {
    return await Promise.race([
      p.then(
        (value) => ({ ok: true as const, value }),
        (error: unknown) => ({ ok: false as const, error }),
      ),
      watchdog,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Issue 28 item 5: a Redis that stops answering while its connection stays open (SIGSTOP on our own
 * redis-server, never the shared one) must not hold a store call until TCP gives up (~15 min).
 */
describe('connectRedis command timeout over a frozen server (own redis-server, SIGSTOP)', () => {
  let server: RedisServerProcess;
  let redis: Redis;

  beforeAll(async () => {
    server = await RedisServerProcess.start([]);
    redis = await connectRedis(server.url, { commandTimeoutMs: 500 });
  });

  afterAll(async () => {
    redis.disconnect();
    await server.stop();
  });

  it(
    'a script and a plain command fail with UnavailableError within the bound; ' + 'after SIGCONT the same client works, the timed-out write applied once',
    async () => {
      const io = new RedisIo(redis);
      const key = `t:{frz-${process.pid}}:members`;
      // The server knows the script (a fresh one would answer the frozen EVALSHA with NOSCRIPT on waking).
      await io.script({ script: 'membershipAddV1', keys: [`${key}-warm`], args: ['10', 'aa'] }, 'write');
      server.freeze();
      const t0 = Date.now();
      const [script, plain] = await Promise.all([
        settledWithin(io.script({ script: 'membershipAddV1', keys: [key], args: ['10', 'aa'] }, 'write'), 10_000),
        settledWithin(io.commands([['SMEMBERS', key]], 'read'), 10_000),
      ]);
      const elapsed = Date.now() - t0;
      server.thaw();
      expect(script).not.toBe('pending');
      expect(plain).not.toBe('pending');
      for (const r of [script, plain]) {
        if (r === 'pending' || r.ok) throw new Error(`expected a rejection, got ${JSON.stringify(r)}`);
        expect(r.error).toBeInstanceOf(UnavailableError);
        expect(String((r.error as Error).message)).toMatch(/did not answer within 500 ms \(it may still run the command/);
      }
      // The bound is the option's, plus the event loop's slack: far below the watchdog.
      expect(elapsed).toBeLessThan(5_000);
      // Same connection, in order: the write that timed out ran when the server woke, before this read.
      const [members] = await io.commands([['SMEMBERS', key]], 'read');
      expect((members as Buffer[]).map(String)).toEqual(['aa']);
      // The caller's retry under the same key changes nothing more (the step is idempotent).
      await io.script({ script: 'membershipAddV1', keys: [key], args: ['10', 'aa'] }, 'write');
      const [after] = await io.commands([['SMEMBERS', key]], 'read');
      expect((after as Buffer[]).map(String)).toEqual(['aa']);
    },
  );

  it('defaults to a bound: a client opened without options does not wait for TCP', async () => {
    const plain = await connectRedis(server.url);
    try {
      expect(plain.options.commandTimeout).toBeGreaterThan(0);
      // A timed-out command must not be sent again on a new connection, after the caller's retry.
      expect(plain.options.autoResendUnfulfilledCommands).toBe(false);
    } finally {
      plain.disconnect();
    }
  });
});
