import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UnavailableError } from '@qim/store-core';
import { freePort } from '@qim/store-core/testing';
import { RedisServerProcess } from '../testing/redis-server-process';
import { requireRedisUrl } from '../testing/redis-test-env';
import { connectRedis, redisWhere } from './connect-redis';
import { RedisIo } from './redis-io';

describe('connectRedis', () => {
  it('connects to QIM_REDIS_URL and registers nothing by itself', async () => {
    const redis = await connectRedis(requireRedisUrl());
    try {
      expect(redis.status).toBe('ready');
      expect(await redis.ping()).toBe('PONG');
    } finally {
      await redis.quit();
    }
  });

  it('an unreachable server → UnavailableError', async () => {
    const port = await freePort();
    await expect(connectRedis(`redis://127.0.0.1:${port}`, { connectTimeoutMs: 500 })).rejects.toBeInstanceOf(UnavailableError);
  });

  it('names where a URL points without its credentials: host:port, or a Unix socket’s path', () => {
    expect(redisWhere('redis://user:secret@10.0.0.5:6380/2')).toBe('10.0.0.5:6380');
    expect(redisWhere('rediss://cache.example:6379')).toBe('cache.example:6379');
    expect(redisWhere('unix:///var/run/redis/redis.sock')).toBe('/var/run/redis/redis.sock');
  });
});

describe('connectRedis over a Unix socket (unix:///path)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'qim-redis-sock-'));
  const socket = join(dir, 'redis.sock');
  let server: RedisServerProcess;

  beforeAll(async () => {
    server = await RedisServerProcess.start(['--unixsocket', socket, '--unixsocketperm', '700']);
  });

  afterAll(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reaches the server on its socket, and the store’s pre-encoded scripts and commands run over it', async () => {
    const redis = await connectRedis(`unix://${socket}`);
    try {
      // The server sees a Unix-socket client (its address is the socket path), not a TCP peer.
      const me = String(await redis.client('INFO'));
      expect(me).toContain(`addr=${socket}`);
      const io = new RedisIo(redis);
      const added = await io.script({ script: 'membershipAddV1', keys: ['t:{u}:members'], args: ['10', 'aa', 'bb'] }, 'write');
      expect(added).toEqual([0, 2]);
      const [members] = await io.commands([['SMEMBERS', 't:{u}:members']], 'read');
      expect((members as Buffer[]).map(String).sort()).toEqual(['aa', 'bb']);
    } finally {
      await redis.quit();
    }
  });

  it('a socket nobody listens on → UnavailableError naming the path', async () => {
    const missing = join(dir, 'nobody.sock');
    await expect(connectRedis(`unix://${missing}`, { connectTimeoutMs: 500 })).rejects.toThrow(new RegExp(`redis at ${missing} is unreachable`));
  });
});
