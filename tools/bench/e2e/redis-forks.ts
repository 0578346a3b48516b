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
  return { forks: field('total_forks'), inProgress: saveInProgress(info) };
}

/** Whether `INFO persistence` text shows an AOF rewrite or RDB save running; fails loudly when the flags are missing. */
export function saveInProgress(info: string): boolean {
  let running = false;
  for (const name of ['aof_rewrite_in_progress', 'rdb_bgsave_in_progress']) {
    const m = new RegExp(`^${name}:([01])\\r?$`, 'm').exec(info);
    if (!m) throw new Error(`Redis INFO has no ${name}`);
    running ||= m[1] === '1';
  }
  return running;
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

/**
 * Polls `INFO persistence` on one connection while a phase runs and records when a background save
 * was running (ms since the phase start): the phase timeline can then be read against them.
 */
export class RedisForkWatch {
  private readonly redis: Redis;
  private readonly windows: [number, number | null][] = [];
  private timer: NodeJS.Timeout | null = null;
  private busy = false;

  constructor(
    url: string,
    private readonly t0: number,
    private readonly everyMs = 200,
  ) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 1 });
  }

  start(): void {
    this.timer = setInterval(() => void this.poll(), this.everyMs);
  }

  /** Stops polling; the windows, a still-running save's end being the stop. */
  async stop(): Promise<[number, number][]> {
    if (this.timer) clearInterval(this.timer);
    const now = Math.round(performance.now() - this.t0);
    this.redis.disconnect();
    return this.windows.map(([a, b]) => [a, b ?? now]);
  }

  private async poll(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const running = saveInProgress(await this.redis.info('persistence'));
      const now = Math.round(performance.now() - this.t0);
      const open = this.windows[this.windows.length - 1];
      if (running && (!open || open[1] !== null)) this.windows.push([now, null]);
      if (!running && open && open[1] === null) open[1] = now;
    } catch {
      // A missed poll only blurs a window's edge; the fork count around the phase still says whether one ran.
    } finally {
      this.busy = false;
    }
  }
}
