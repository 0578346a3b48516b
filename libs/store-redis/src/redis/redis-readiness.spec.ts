import { RedisServerProcess } from '../testing/redis-server-process';
import { testClient } from '../testing/redis-test-env';
import { checkRedisReadiness } from './redis-readiness';

describe('checkRedisReadiness', () => {
  let noAof: RedisServerProcess;
  beforeAll(async () => {
    noAof = await RedisServerProcess.start(['--appendonly', 'no']);
  });
  afterAll(async () => {
    await noAof.stop();
  });

  it('the project Redis (QIM_REDIS_URL, AOF on) is ready in production and reports its persistence settings', async () => {
    const redis = testClient();
    try {
      const r = await checkRedisReadiness(redis, 'production');
      expect(r).toMatchObject({ ready: true, appendonly: 'yes', env: 'production', reason: null });
      expect(['always', 'everysec', 'no']).toContain(r.appendfsync);
    } finally {
      await redis.quit();
    }
  });

  it('without AOF: ready only in QIM_ENV=development|test', async () => {
    const redis = testClient(noAof.url);
    try {
      for (const env of ['production', 'staging', '']) {
        const r = await checkRedisReadiness(redis, env);
        expect(r.ready).toBe(false);
        expect(r.appendonly).toBe('no');
        expect(r.reason).toMatch(/AOF/);
      }
      for (const env of ['development', 'test']) expect(await checkRedisReadiness(redis, env)).toMatchObject({ ready: true, appendonly: 'no' });
    } finally {
      await redis.quit();
    }
  });

  it('a server that does not answer is not ready (never throws)', async () => {
    const dead = await RedisServerProcess.start(['--appendonly', 'yes']);
    const redis = testClient(dead.url);
    await redis.ping();
    await dead.stop();
    const r = await checkRedisReadiness(redis, 'production');
    expect(r.ready).toBe(false);
    expect(r.reason).toMatch(/does not answer/);
    redis.disconnect();
  });
});
