import type { Cluster, Redis } from 'ioredis';

/** What `checkRedisReadiness` found. */
export interface RedisReadiness {
  /** True when the server answers, is not loading, and its persistence is acceptable for `env`. */
  readonly ready: boolean;
  /** `CONFIG GET appendonly` ('yes' | 'no'), or from INFO persistence when CONFIG is unavailable. */
  readonly appendonly: string;
  /** `CONFIG GET appendfsync` ('always' | 'everysec' | 'no'), or 'unknown'. */
  readonly appendfsync: string;
  /** `CONFIG GET maxmemory-policy` ('noeviction' required outside development/test), or 'unknown'. */
  readonly maxmemoryPolicy: string;
  /** `CONFIG GET no-appendfsync-on-rewrite` ('no' required outside development/test), or 'unknown'. */
  readonly noAppendfsyncOnRewrite: string;
  /** The `QIM_ENV` the decision was made for ('' when unset). */
  readonly env: string;
  /** Why it is not ready (null when ready). */
  readonly reason: string | null;
  /** What an operator should know although it is ready (e.g. `appendfsync everysec` outside production); null otherwise. */
  readonly warning: string | null;
}

/** Environments where a Redis without AOF is accepted (data loss on restart is acceptable there). */
const RELAXED_ENVS = new Set(['development', 'test']);
/** Environments that require `appendfsync always`; '' because the services read an unset `QIM_ENV` as production. */
const FSYNC_ALWAYS_ENVS = new Set(['production', '']);

/** Why anything but `appendfsync always` can lose an acknowledged message without a trace. */
const FSYNC_RISK =
  'an OS crash or power loss can roll back the seq INCR together with the record after the send was acknowledged: ' +
  'a lost acknowledged message, not detectable afterwards';

/**
 * Settings that lose data without a trace, each with the value required outside development/test
 * and what any other value does. Checked by `CONFIG GET`; a server that refuses CONFIG reads as
 * 'unknown', which is refused too (the setting cannot be shown to be safe).
 */
const SILENT_LOSS = [
  {
    field: 'maxmemoryPolicy',
    name: 'maxmemory-policy',
    required: 'noeviction',
    risk:
      "an evicting policy can drop a user's retention meta (the user then reads as clean: every entry skipped without CURSOR_EXPIRED) " +
      'or a day index (recreated without its expiry: a leak)',
  },
  {
    field: 'noAppendfsyncOnRewrite',
    name: 'no-appendfsync-on-rewrite',
    required: 'no',
    risk: 'yes suspends the fsync of appendfsync always while an AOF rewrite runs: an OS crash then loses acknowledged writes',
  },
] as const;

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
 * Readiness of the Redis backend: the server answers and is not loading its dataset; outside
 * `QIM_ENV=development|test` the append-only file is on (`appendonly yes`), so that an acknowledged
 * commit survives a restart; and in production (`QIM_ENV=production` or unset) the AOF is fsynced
 * before every reply (`appendfsync always`): with `everysec` an OS crash can roll back the last
 * second — a seq INCR and its record together, after the ACK — which no later check can tell from a
 * message never sent. Elsewhere `everysec`/`no` is ready with a `warning`. Outside development/test
 * also `maxmemory-policy noeviction` and `no-appendfsync-on-rewrite no` (`SILENT_LOSS`: each other
 * value loses data without a trace); in development/test they are ready with a `warning`. Never
 * throws: a dead server is `ready: false` with the reason. On a Cluster client every primary is
 * checked, and `cluster_state` must be `ok`. With `minReplicaAcks` > 0 (ADR-0038) each primary must
 * have that many replicas online.
 */
export async function checkRedisReadiness(redis: Redis | Cluster, env: string = process.env['QIM_ENV'] ?? '', minReplicaAcks = 0): Promise<RedisReadiness> {
  if ((redis as { isCluster?: boolean }).isCluster === true) return checkClusterReadiness(redis as Cluster, env, minReplicaAcks);
  const own = await checkServerReadiness(redis as Redis, env);
  return own.ready ? withReplicas(own, redis as Redis, minReplicaAcks, 'redis') : own;
}

/**
 * A cluster is ready when `CLUSTER INFO` says `cluster_state:ok` (every slot served) and every
 * primary passes the standalone check (and has `minReplicaAcks` replicas online); the settings
 * shown are those of the first primary that fails, or of the first primary.
 */
async function checkClusterReadiness(cluster: Cluster, env: string, minReplicaAcks: number): Promise<RedisReadiness> {
  const down = {
    ready: false,
    appendonly: 'unknown',
    appendfsync: 'unknown',
    maxmemoryPolicy: 'unknown',
    noAppendfsyncOnRewrite: 'unknown',
    env,
    warning: null,
  };
  let state: string | null;
  try {
    state = infoField((await cluster.cluster('INFO')) as string, 'cluster_state');
  } catch (e) {
    return { ...down, reason: `redis cluster does not answer: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (state !== 'ok') return { ...down, reason: `redis cluster_state is '${state ?? 'unknown'}' (a slot has no serving primary)` };
  const masters = cluster.nodes('master');
  if (masters.length === 0) return { ...down, reason: 'redis cluster: no primary known to the client' };
  const results = await Promise.all(
    masters.map(async (node) => {
      const where = `redis cluster primary ${node.options.host}:${node.options.port}`;
      const r = await checkServerReadiness(node, env);
      return r.ready ? withReplicas(r, node, minReplicaAcks, where) : { ...r, reason: `${where}: ${r.reason}` };
    }),
  );
  const failed = results.find((r) => !r.ready);
  if (failed !== undefined) return failed;
  const warnings = [...new Set(results.map((r) => r.warning).filter((w): w is string => w !== null))];
  return { ...results[0]!, warning: warnings.length === 0 ? null : warnings.join('; ') };
}

/** Not ready when the server has fewer online replicas than the replica acks every write waits for (each would fail). */
async function withReplicas(r: RedisReadiness, node: Redis, minReplicaAcks: number, where: string): Promise<RedisReadiness> {
  if (minReplicaAcks === 0) return r;
  let online: number;
  try {
    const info = await node.info('replication');
    online = (info.match(/^slave\d+:.*state=online/gm) ?? []).length;
  } catch (e) {
    return { ...r, ready: false, reason: `${where} does not answer INFO replication: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (online >= minReplicaAcks) return r;
  return {
    ...r,
    ready: false,
    reason: `${where} has ${online} replica(s) online; every acknowledged write waits for ${minReplicaAcks} (QIM_REDIS_MIN_REPLICA_ACKS), so sends would fail`,
  };
}

async function checkServerReadiness(redis: Redis, env: string): Promise<RedisReadiness> {
  let info: string;
  try {
    info = await redis.info('persistence');
  } catch (e) {
    const reason = `redis does not answer: ${e instanceof Error ? e.message : String(e)}`;
    return {
      ready: false,
      appendonly: 'unknown',
      appendfsync: 'unknown',
      maxmemoryPolicy: 'unknown',
      noAppendfsyncOnRewrite: 'unknown',
      env,
      reason,
      warning: null,
    };
  }
  const aofFromInfo = infoField(info, 'aof_enabled');
  const appendonly = (await configValue(redis, 'appendonly')) ?? (aofFromInfo === null ? 'unknown' : aofFromInfo === '1' ? 'yes' : 'no');
  const appendfsync = (await configValue(redis, 'appendfsync')) ?? 'unknown';
  const maxmemoryPolicy = (await configValue(redis, 'maxmemory-policy')) ?? 'unknown';
  const noAppendfsyncOnRewrite = (await configValue(redis, 'no-appendfsync-on-rewrite')) ?? 'unknown';
  const base = { appendonly, appendfsync, maxmemoryPolicy, noAppendfsyncOnRewrite, env, warning: null };
  if (infoField(info, 'loading') === '1') return { ...base, ready: false, reason: 'redis is loading its dataset' };
  const relaxed = RELAXED_ENVS.has(env);
  if (!relaxed && appendonly !== 'yes') {
    return { ...base, ready: false, reason: `appendonly is '${appendonly}': outside QIM_ENV=development|test the Redis backend requires AOF (appendonly yes)` };
  }
  const warnings: string[] = [];
  for (const s of SILENT_LOSS) {
    const value = base[s.field];
    if (value === s.required) continue;
    if (!relaxed)
      return {
        ...base,
        ready: false,
        reason: `${s.name} is '${value}': outside QIM_ENV=development|test the Redis backend requires ${s.name} ${s.required} (${s.risk})`,
      };
    warnings.push(`${s.name} ${value} (QIM_ENV=${env}): ${s.risk}; outside development/test it must be ${s.required}`);
  }
  if (appendonly === 'yes' && appendfsync !== 'always') {
    if (FSYNC_ALWAYS_ENVS.has(env)) {
      return {
        ...base,
        ready: false,
        reason: `appendfsync is '${appendfsync}': QIM_ENV=${env || 'production (unset)'} requires appendfsync always (${FSYNC_RISK})`,
      };
    }
    warnings.unshift(`appendfsync ${appendfsync} (QIM_ENV=${env}): ${FSYNC_RISK}; production requires appendfsync always`);
  }
  return { ...base, ready: true, reason: null, warning: warnings.length === 0 ? null : warnings.join('; ') };
}
