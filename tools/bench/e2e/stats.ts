/** Percentiles of the latency spectrum stored in the result (100 = max). */
export const SPECTRUM = [0, 10, 25, 50, 75, 90, 95, 98, 99, 99.5, 99.8, 99.9, 100] as const;

export interface LatencySummary {
  readonly count: number;
  readonly p50: number | null;
  readonly p99: number | null;
  readonly p999: number | null;
  readonly max: number | null;
  /** `[percentile, ms]` at each of `SPECTRUM`. */
  readonly spectrum: [number, number][];
}

/** Nearest-rank percentile summary of latency samples (ms, rounded to 0.1 ms). */
export function summarize(samples: readonly number[]): LatencySummary {
  const s = [...samples].sort((a, b) => a - b);
  const at = (p: number): number | null => {
    if (s.length === 0) return null;
    const rank = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
    return Math.round(s[rank]! * 10) / 10;
  };
  return {
    count: s.length,
    p50: at(50),
    p99: at(99),
    p999: at(99.9),
    max: at(100),
    spectrum: s.length === 0 ? [] : SPECTRUM.map((p) => [p, at(p)!]),
  };
}

/** One second of a phase (by send start): how many became visible and how slowly. */
export interface SecondSummary {
  /** Seconds since the phase started (the send's start), floor. */
  readonly second: number;
  readonly count: number;
  readonly p50: number | null;
  readonly p99: number | null;
  readonly max: number | null;
}

/** Latencies grouped by the second their sends started in, from `t0`: where in a phase the tail came from. */
export function bySecond(sentAt: readonly number[], latencies: readonly number[], t0: number): SecondSummary[] {
  if (sentAt.length !== latencies.length) throw new Error(`bySecond: ${sentAt.length} send times for ${latencies.length} latencies`);
  const buckets = new Map<number, number[]>();
  for (let i = 0; i < sentAt.length; i++) {
    const second = Math.max(0, Math.floor((sentAt[i]! - t0) / 1000));
    const b = buckets.get(second) ?? [];
    b.push(latencies[i]!);
    buckets.set(second, b);
  }
  return [...buckets.keys()]
    .sort((a, b) => a - b)
    .map((second) => {
      const { count, p50, p99, max } = summarize(buckets.get(second)!);
      return { second, count, p50, p99, max };
    });
}

/**
 * The latencies of the messages whose whole way (send start → visible) stayed clear of every window
 * (`[from, to]` ms since `t0`, e.g. a Redis background save, widened by `slackMs` on both sides for
 * the polling that found it): the phase as it would have been without them.
 */
export function outsideWindows(
  sentAt: readonly number[],
  latencies: readonly number[],
  t0: number,
  windows: readonly (readonly [number, number])[],
  slackMs: number,
): number[] {
  if (sentAt.length !== latencies.length) throw new Error(`outsideWindows: ${sentAt.length} send times for ${latencies.length} latencies`);
  const out: number[] = [];
  for (let i = 0; i < sentAt.length; i++) {
    const from = sentAt[i]! - t0;
    const to = from + latencies[i]!;
    if (windows.every(([a, b]) => to < a - slackMs || from > b + slackMs)) out.push(latencies[i]!);
  }
  return out;
}

/** Counts by key (errors by code). */
export class Tally {
  private readonly counts = new Map<string, number>();
  add(key: string, n = 1): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + n);
  }
  toJSON(): Record<string, number> {
    return Object.fromEntries([...this.counts].sort(([a], [b]) => a.localeCompare(b)));
  }
  get total(): number {
    let t = 0;
    for (const n of this.counts.values()) t += n;
    return t;
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
