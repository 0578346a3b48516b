import { Redis } from 'ioredis';

/**
 * Redis's own latency monitor over a phase (`LATENCY HISTORY`): which of the server's internal steps
 * stalled it for at least the threshold, how often and for how long — e.g. `aof-fsync-always`
 * (the fsync each write waits for under `appendfsync always`), `aof-write-active-child` (an AOF
 * write while a rewrite child runs), `fork`, `command`. It tells a rewrite's fork from the disk
 * contention of its child.
 */
export interface LatencyEvent {
  readonly event: string;
  /** Seconds with a sample (Redis keeps one per event and second: that second's largest stall). */
  readonly seconds: number;
  /** The largest stall, ms. */
  readonly maxMs: number;
  /** The sum of those per-second maxima, ms: a lower bound on the time the server stood still for it. */
  readonly sumMs: number;
}

/** Parses `LATENCY HISTORY <event>` ([[unix seconds, ms], …]) into an event summary; fails loudly on another shape. */
export function latencyEventOf(event: string, history: unknown): LatencyEvent {
  if (!Array.isArray(history)) throw new Error(`LATENCY HISTORY ${event}: not an array`);
  let maxMs = 0;
  let sumMs = 0;
  for (const sample of history) {
    const ms = Array.isArray(sample) && sample.length === 2 ? Number(sample[1]) : Number.NaN;
    if (!Number.isFinite(ms)) throw new Error(`LATENCY HISTORY ${event}: unexpected sample ${JSON.stringify(sample)}`);
    maxMs = Math.max(maxMs, ms);
    sumMs += ms;
  }
  return { event, seconds: history.length, maxMs, sumMs };
}

/** The event names of a `LATENCY LATEST` reply ([[event, time, latest ms, max ms, …], …]). */
export function latestEventNames(latest: unknown): string[] {
  if (!Array.isArray(latest)) throw new Error('LATENCY LATEST: not an array');
  return latest.map((row) => {
    if (!Array.isArray(row) || typeof row[0] !== 'string') throw new Error(`LATENCY LATEST: unexpected row ${JSON.stringify(row)}`);
    return row[0];
  });
}

/**
 * Turns the monitor on for a phase (threshold `thresholdMs`, history reset) and, at `stop`, reads
 * every event and puts the server's threshold back as it was. The history holds 160 seconds per
 * event, so a longer phase keeps its last 160.
 */
export class RedisLatencyWatch {
  private constructor(
    private readonly redis: Redis,
    private readonly previousThreshold: string,
  ) {}

  static async start(url: string, thresholdMs: number): Promise<RedisLatencyWatch> {
    const redis = new Redis(url, { maxRetriesPerRequest: 1 });
    let previous: string | null = null;
    try {
      const got = (await redis.config('GET', 'latency-monitor-threshold')) as string[];
      if (got.length !== 2) throw new Error(`CONFIG GET latency-monitor-threshold answered ${JSON.stringify(got)}`);
      previous = got[1]!;
      await redis.config('SET', 'latency-monitor-threshold', String(thresholdMs));
      await redis.call('LATENCY', 'RESET');
      return new RedisLatencyWatch(redis, previous);
    } catch (e) {
      // Put the threshold back (once it was read) and close the connection before failing.
      if (previous !== null) await redis.config('SET', 'latency-monitor-threshold', previous).catch(() => undefined);
      redis.disconnect();
      throw e;
    }
  }

  async stop(): Promise<LatencyEvent[]> {
    try {
      const names = latestEventNames(await this.redis.call('LATENCY', 'LATEST'));
      const events: LatencyEvent[] = [];
      for (const name of names) events.push(latencyEventOf(name, await this.redis.call('LATENCY', 'HISTORY', name)));
      return events.sort((a, b) => b.sumMs - a.sumMs);
    } finally {
      await this.redis.config('SET', 'latency-monitor-threshold', this.previousThreshold).catch(() => undefined);
      this.redis.disconnect();
    }
  }
}
