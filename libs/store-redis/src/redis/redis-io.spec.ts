import { InvariantViolationError } from '@qim/store-core';
import { Redis } from 'ioredis';
import { RedisServerProcess } from '../testing/redis-server-process';
import { connectRedis } from './connect-redis';
import { RedisIo } from './redis-io';
import type { ScriptCall } from './redis-io';
import { countSocketWrites } from './socket-writes';

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
    const writes = countSocketWrites(redis);
    try {
      const replies = await io.scripts(
        ['bb', 'cc', 'aa'].map((m) => ({ ...call, args: ['10', m] })),
        'write',
      );
      expect(writes.count()).toBe(1);
      expect(replies).toHaveLength(3);
      expect((await redis.smembers('t:{m}:members')).sort()).toEqual(['aa', 'bb', 'cc']);
    } finally {
      writes.restore();
    }
  });

  it('sends a pipelined batch as pre-encoded EVALSHA in one socket write, not through a driver pipeline', async () => {
    await redis.del('t:{m}:members');
    await io.script(call, 'write');
    const pipeline = jest.spyOn(redis, 'pipeline');
    const writes = countSocketWrites(redis);
    try {
      const replies = await io.scriptsPipelined(
        ['bb', 'cc', 'aa'].map((m) => ({ ...call, args: ['10', m] })),
        'write',
      );
      expect(pipeline).not.toHaveBeenCalled();
      expect(writes.count()).toBe(1);
      expect(replies).toEqual([
        [0, 2],
        [0, 3],
        [0, 3],
      ]);
      expect((await redis.smembers('t:{m}:members')).sort()).toEqual(['aa', 'bb', 'cc']);
    } finally {
      pipeline.mockRestore();
      writes.restore();
    }
  });

  it('a pipelined batch the server does not know yet runs every call (NOSCRIPT → the driver loads the script)', async () => {
    await redis.del('t:{m}:members');
    await redis.script('FLUSH');
    const replies = await io.scriptsPipelined(
      ['x', 'y'].map((m) => ({ ...call, args: ['10', m] })),
      'write',
    );
    expect(replies).toHaveLength(2);
    expect((await redis.smembers('t:{m}:members')).sort()).toEqual(['x', 'y']);
  });

  it('a refused call of a pipelined batch rejects it as InvariantViolationError once the others ran', async () => {
    await redis.del('t:{m}:members', 't:{n}:members');
    await redis.set('t:{n}:members', 'not a set');
    const calls = [
      { ...call, args: ['10', 'p'] },
      { ...call, keys: ['t:{n}:members'] },
      { ...call, args: ['10', 'q'] },
    ];
    await expect(io.scriptsPipelined(calls, 'write')).rejects.toBeInstanceOf(InvariantViolationError);
    expect((await redis.smembers('t:{m}:members')).sort()).toEqual(['p', 'q']);
  });

  it('a client with a key prefix pipelines through the driver, which prefixes the keys', async () => {
    const prefixed = new Redis(server.url, { keyPrefix: 'pre:', lazyConnect: true });
    await prefixed.connect();
    try {
      const replies = await new RedisIo(prefixed).scriptsPipelined([{ ...call, args: ['10', 'z'] }], 'write');
      expect(replies).toHaveLength(1);
      expect(await redis.smembers('pre:t:{m}:members')).toEqual(['z']);
    } finally {
      await prefixed.quit();
    }
  });

  it('sends plain commands pre-encoded, not through a driver pipeline object per call, with the driver’s replies', async () => {
    await redis.del('t:{p}:set', 't:{p}:hash', 't:{p}:z', 't:{p}:s');
    await redis.sadd('t:{p}:set', 'aa', 'bb');
    await redis.hset('t:{p}:hash', 'state', 'RECORDED', 'intent', Buffer.from([0, 255, 13, 10]));
    await redis.zadd('t:{p}:z', 1, 'one', 2, 'two');
    await redis.set('t:{p}:s', Buffer.from([1, 2, 3]));
    const cmds = [
      ['SMEMBERS', 't:{p}:set'],
      ['HMGET', 't:{p}:hash', 'state', 'intent', 'missing'],
      ['ZRANGE', 't:{p}:z', '0', '-1', 'WITHSCORES'],
      ['GET', 't:{p}:s'],
      ['GET', 't:{p}:absent'],
      ['SISMEMBER', 't:{p}:set', 'bb'],
    ] as const;
    const driver = await Promise.all([
      redis.smembersBuffer('t:{p}:set'),
      redis.hmgetBuffer('t:{p}:hash', 'state', 'intent', 'missing'),
      redis.zrangeBuffer('t:{p}:z', '0', '-1', 'WITHSCORES'),
      redis.getBuffer('t:{p}:s'),
      redis.getBuffer('t:{p}:absent'),
      redis.sismember('t:{p}:set', 'bb'),
    ]);
    const pipeline = jest.spyOn(redis, 'pipeline');
    const writes = countSocketWrites(redis);
    try {
      const replies = await io.commands(cmds, 'read');
      // The driver's auto-pipelining builds a pipeline object (a copy of every command method) per turn.
      expect(pipeline).not.toHaveBeenCalled();
      expect(writes.count()).toBe(1);
      expect(replies).toEqual(driver);
      expect((replies[1] as Buffer[])[1]).toEqual(Buffer.from([0, 255, 13, 10]));
    } finally {
      pipeline.mockRestore();
      writes.restore();
    }
  });

  it('a refused plain command rejects as InvariantViolationError, an unknown one before anything is sent', async () => {
    await redis.set('t:{p}:str', 'x');
    await expect(io.commands([['SMEMBERS', 't:{p}:str']], 'read')).rejects.toBeInstanceOf(InvariantViolationError);
    await expect(io.commands([['NOSUCHCOMMAND', 'k']], 'read')).rejects.toBeInstanceOf(InvariantViolationError);
  });

  it('a refused script is an InvariantViolationError', async () => {
    await redis.set('t:{m}:members', 'not a set');
    await expect(io.script(call, 'write')).rejects.toBeInstanceOf(InvariantViolationError);
  });
});
