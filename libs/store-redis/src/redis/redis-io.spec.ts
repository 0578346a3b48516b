import { InvariantViolationError } from '@qim/store-core';
import type { Redis } from 'ioredis';
import { RedisServerProcess } from '../testing/redis-server-process';
import { connectRedis } from './connect-redis';
import { RedisIo } from './redis-io';
import type { ScriptCall } from './redis-io';

/** Runs on a private server: the spec flushes its script cache. */
describe('RedisIo scripts (pre-encoded EVALSHA)', () => {
  let server: RedisServerProcess;
  let redis: Redis;
  let io: RedisIo;
  const call: ScriptCall = { script: 'membershipAddV1', keys: ['t:{m}:members'], args: ['10', 'aa'] };

  beforeAll(async () => {
    server = await RedisServerProcess.start([]);
    redis = await connectRedis(server.url);
    io = new RedisIo(redis);
  });

  afterAll(async () => {
    await redis.quit();
    await server.stop();
  });

  it('runs a script the server does not know yet (NOSCRIPT → the driver loads it) and then by EVALSHA', async () => {
    await redis.script('FLUSH');
    const first = await io.script(call, 'write');
    expect(await io.script(call, 'write')).toEqual(first);
    expect(await redis.smembers('t:{m}:members')).toEqual(['aa']);
  });

  it('sends the scripts of one event-loop turn in one socket write, replies in order', async () => {
    await io.script(call, 'write');
    const socket = (redis as unknown as { stream: Record<'_write' | '_writev', (...a: unknown[]) => void> }).stream;
    let writes = 0;
    for (const name of ['_write', '_writev'] as const) {
      const original = socket[name];
      socket[name] = (...a: unknown[]) => {
        writes += 1;
        original.apply(socket, a);
      };
    }
    try {
      const replies = await io.scripts(['bb', 'cc', 'aa'].map((m) => ({ ...call, args: ['10', m] })), 'write');
      expect(writes).toBe(1);
      expect(replies).toHaveLength(3);
      expect((await redis.smembers('t:{m}:members')).sort()).toEqual(['aa', 'bb', 'cc']);
    } finally {
      delete (socket as Partial<typeof socket>)._write;
      delete (socket as Partial<typeof socket>)._writev;
    }
  });

  it('a refused script is an InvariantViolationError', async () => {
    await redis.set('t:{m}:members', 'not a set');
    await expect(io.script(call, 'write')).rejects.toBeInstanceOf(InvariantViolationError);
  });
});
