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

  it('the project Redis (QIM_REDIS_URL, AOF on) reports its persistence settings; production readiness follows appendfsync', async () => {
    const redis = testClient();
    try {
      const r = await checkRedisReadiness(redis, 'production');
      expect(r).toMatchObject({ appendonly: 'yes', env: 'production', ready: r.appendfsync === 'always' });
      expect(['always', 'everysec', 'no']).toContain(r.appendfsync);
    } finally {
      await redis.quit();
    }
  });

  /**
   * Issue 10 item 11, on the project Redis itself (CONFIG SET on the test server, restored after):
   * an OS crash under `everysec` can roll back the seq INCR together with the record after the ACK —
   * a lost acknowledged message nobody can detect afterwards — so production (and an unset QIM_ENV,
   * which the services read as production) requires `always`; elsewhere `everysec` is ready with a warning.
   */
  it('appendfsync: production (or unset QIM_ENV) requires always and names the setting; elsewhere everysec is ready with a warning', async () => {
    const redis = testClient();
    const before = ((await redis.config('GET', 'appendfsync')) as string[])[1]!;
    try {
      await redis.config('SET', 'appendfsync', 'everysec');
      for (const env of ['production', '']) {
        const r = await checkRedisReadiness(redis, env);
        expect(r).toMatchObject({ ready: false, appendonly: 'yes', appendfsync: 'everysec' });
        expect(r.reason).toMatch(/appendfsync is 'everysec'.*requires appendfsync always/);
      }
      for (const env of ['staging', 'development', 'test']) {
        const r = await checkRedisReadiness(redis, env);
        expect(r).toMatchObject({ ready: true, appendfsync: 'everysec', reason: null });
        expect(r.warning).toMatch(/appendfsync everysec.*OS crash/);
      }
      await redis.config('SET', 'appendfsync', 'no');
      expect(await checkRedisReadiness(redis, 'production')).toMatchObject({ ready: false, appendfsync: 'no' });
      expect((await checkRedisReadiness(redis, 'staging')).warning).toMatch(/appendfsync no/);

      await redis.config('SET', 'appendfsync', 'always');
      for (const env of ['production', '', 'staging', 'test']) {
        expect(await checkRedisReadiness(redis, env)).toMatchObject({ ready: true, appendfsync: 'always', reason: null, warning: null });
      }
    } finally {
      await redis.config('SET', 'appendfsync', before);
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

  /**
   * Issue 27 item 5: settings that lose data without a trace. An evicting `maxmemory-policy` can drop
   * a user's retention meta (the user then reads as clean: every entry skipped) or a day index
   * (recreated without its expiry: a leak); `no-appendfsync-on-rewrite yes` suspends the fsync of
   * `appendfsync always` while an AOF rewrite runs. Outside development/test both refuse, naming the
   * setting; in development/test they are ready with a warning. On a server of its own (CONFIG SET).
   */
  it('maxmemory-policy other than noeviction and no-appendfsync-on-rewrite yes refuse outside development/test, naming the setting', async () => {
    const own = await RedisServerProcess.start(['--appendonly', 'yes', '--appendfsync', 'always']);
    const redis = testClient(own.url);
    try {
      expect(await checkRedisReadiness(redis, 'production')).toMatchObject({
        ready: true,
        maxmemoryPolicy: 'noeviction',
        noAppendfsyncOnRewrite: 'no',
        warning: null,
      });
      for (const policy of ['allkeys-lru', 'volatile-ttl', 'allkeys-random']) {
        await redis.config('SET', 'maxmemory-policy', policy);
        for (const env of ['production', '', 'staging']) {
          const r = await checkRedisReadiness(redis, env);
          expect(r).toMatchObject({ ready: false, maxmemoryPolicy: policy });
          expect(r.reason).toMatch(new RegExp(`maxmemory-policy is '${policy}'.*noeviction`));
        }
        for (const env of ['development', 'test']) {
          const r = await checkRedisReadiness(redis, env);
          expect(r).toMatchObject({ ready: true, reason: null });
          expect(r.warning).toMatch(/maxmemory-policy/);
        }
      }
      await redis.config('SET', 'maxmemory-policy', 'noeviction');
      await redis.config('SET', 'no-appendfsync-on-rewrite', 'yes');
      for (const env of ['production', '', 'staging']) {
        const r = await checkRedisReadiness(redis, env);
        expect(r).toMatchObject({ ready: false, noAppendfsyncOnRewrite: 'yes' });
        expect(r.reason).toMatch(/no-appendfsync-on-rewrite is 'yes'/);
      }
      const dev = await checkRedisReadiness(redis, 'test');
      expect(dev).toMatchObject({ ready: true, reason: null });
      expect(dev.warning).toMatch(/no-appendfsync-on-rewrite/);
      await redis.config('SET', 'no-appendfsync-on-rewrite', 'no');
      expect(await checkRedisReadiness(redis, 'production')).toMatchObject({ ready: true, reason: null, warning: null });
    } finally {
      await redis.quit();
      await own.stop();
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
