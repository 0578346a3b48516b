import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { requireEnv } from './env';

const url = requireEnv('QIM_REDIS_URL');

jest.setTimeout(30_000);

describe('Redis smoke (real server at QIM_REDIS_URL)', () => {
  let redis: Redis;

  beforeAll(() => {
    redis = new Redis(url, { maxRetriesPerRequest: 2, lazyConnect: false });
  });

  afterAll(async () => {
    await redis?.quit();
  });

  it('runs a Lua script by SHA after SCRIPT LOAD (EVALSHA)', async () => {
    const script = "return {KEYS[1], redis.call('INCRBY', KEYS[1], ARGV[1])}";
    const sha = (await redis.script('LOAD', script)) as string;
    expect(sha).toMatch(/^[0-9a-f]{40}$/);

    const key = `qim:infra:smoke:{${randomUUID()}}`;
    try {
      expect(await redis.evalsha(sha, 1, key, 5)).toEqual([key, 5]);
      expect(await redis.evalsha(sha, 1, key, 2)).toEqual([key, 7]);
    } finally {
      await redis.del(key);
    }
  });

  it('rejects EVALSHA of an unknown script with NOSCRIPT', async () => {
    await expect(redis.evalsha('0'.repeat(40), 0)).rejects.toThrow(/NOSCRIPT/);
  });
});
