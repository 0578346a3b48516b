import type { Redis } from 'ioredis';

/** What `checkRedisReadiness` found. */
export interface RedisReadiness {
  /** True when the server answers, is not loading, and its persistence is acceptable for `env`. */
  readonly ready: boolean;
  /** `CONFIG GET appendonly` ('yes' | 'no'), or from INFO persistence when CONFIG is unavailable. */
  readonly appendonly: string;
  /** `CONFIG GET appendfsync` ('always' | 'everysec' | 'no'), or 'unknown'. */
  readonly appendfsync: string;
  /** The `QIM_ENV` the decision was made for ('' when unset). */
  readonly env: string;
  /** Why it is not ready (null when ready). */
  readonly reason: string | null;
}

/** Environments where a Redis without AOF is accepted (data loss on restart is acceptable there). */
const RELAXED_ENVS = new Set(['development', 'test']);

function infoField(info: string, field: string): string | null {
  const m = new RegExp(`^${field}:(.*)$`, 'm').exec(info);
  return m === null ? null : m[1]!.trim();
}

async function configValue(redis: Redis, name: string): Promise<string | null> {
  try {
    const pair = (await redis.config('GET', name)) as string[];
    return pair.length >= 2 ? pair[1]! : null;
  } catch {
    return null;
  }
}

/**
 * Readiness of the Redis backend: the server answers and is not loading its dataset, and — outside
 * `QIM_ENV=development|test` — the append-only file is on (`appendonly yes`), so that an
 * acknowledged commit survives a restart. Reports `appendfsync` for operators (`always` loses no
 * acknowledged write even on power loss; `everysec` may lose up to a second on an OS crash).
 * Never throws: a dead server is `ready: false` with the reason.
 */
export async function checkRedisReadiness(redis: Redis, env: string = process.env['QIM_ENV'] ?? ''): Promise<RedisReadiness> {
  let info: string;
  try {
    info = await redis.info('persistence');
  } catch (e) {
    const reason = `redis does not answer: ${e instanceof Error ? e.message : String(e)}`;
    return { ready: false, appendonly: 'unknown', appendfsync: 'unknown', env, reason };
  }
  const aofFromInfo = infoField(info, 'aof_enabled');
  const appendonly = (await configValue(redis, 'appendonly')) ?? (aofFromInfo === null ? 'unknown' : aofFromInfo === '1' ? 'yes' : 'no');
  const appendfsync = (await configValue(redis, 'appendfsync')) ?? 'unknown';
  const base = { appendonly, appendfsync, env };
  if (infoField(info, 'loading') === '1') return { ...base, ready: false, reason: 'redis is loading its dataset' };
  if (!RELAXED_ENVS.has(env) && appendonly !== 'yes') {
    return { ...base, ready: false, reason: `appendonly is '${appendonly}': outside QIM_ENV=development|test the Redis backend requires AOF (appendonly yes)` };
  }
  return { ...base, ready: true, reason: null };
}
