import { Redis } from 'ioredis';

/**
 * Redis's background saves around a phase: an AOF rewrite or RDB save forks a child that copies the
 * whole dataset (a core for seconds on a grown one), which slows every other process on the machine.
 * The phase table flags the phases it overlapped.
 */
export interface RedisForks {
  /** `total_forks` (INFO stats): forks since the server started. */
  readonly forks: number;
  /** A rewrite or save running right now (`aof_rewrite_in_progress`, `rdb_bgsave_in_progress`). */
  readonly inProgress: boolean;
}

/** Reads the fork counters out of `INFO persistence` + `INFO stats` text; fails loudly when they are missing. */
export function parseRedisForks(info: string): RedisForks {
  const field = (name: string): number => {
    const m = new RegExp(`^${name}:(\\d+)\\r?$`, 'm').exec(info);
    if (!m) throw new Error(`Redis INFO has no ${name}`);
    return Number(m[1]);
  };
  return { forks: field('total_forks'), inProgress: field('aof_rewrite_in_progress') + field('rdb_bgsave_in_progress') > 0 };
}

/** Background saves that overlapped a phase: those started during it, plus one already running at its start. */
export function forksDuring(before: RedisForks, after: RedisForks): number {
  const started = after.forks - before.forks;
  if (started < 0) throw new Error('Redis total_forks went down (the server restarted?)');
  return started + (before.inProgress ? 1 : 0);
}

/** One short-lived connection's `INFO persistence` and `INFO stats`. */
export async function readRedisForks(url: string): Promise<RedisForks> {
  const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false });
  try {
    await r.connect();
    return parseRedisForks(`${await r.info('persistence')}\n${await r.info('stats')}`);
  } finally {
    r.disconnect();
  }
}
