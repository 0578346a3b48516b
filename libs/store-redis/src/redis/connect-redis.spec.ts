import { UnavailableError } from '@qim/store-core';
import { freePort } from '../testing/redis-server-process';
import { requireRedisUrl } from '../testing/redis-test-env';
import { connectRedis } from './connect-redis';

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
});
