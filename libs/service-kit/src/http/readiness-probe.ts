import type { ReadinessCheck, ReadinessReport } from './readiness';
import { runReadiness } from './readiness';

export interface ReadinessProbeOptions {
  /** Bound of each check (ms, default 2 000). */
  readonly timeoutMs?: number;
  /** How long a finished report answers later requests (ms, default 1 000). */
  readonly maxAgeMs?: number;
  readonly now?: () => number;
}

/**
 * The checks of `/readyz`, run at most once per `maxAgeMs` whatever the request rate: requests
 * arriving while a run is under way share it, later ones get its report until it is `maxAgeMs`
 * old. So a flood of probes costs one run of each check (one store query, one Kafka metadata
 * request over a shared connection) per interval, never one per request.
 */
export class ReadinessProbe {
  private readonly timeoutMs: number;
  private readonly maxAgeMs: number;
  private readonly now: () => number;
  private running: Promise<ReadinessReport> | null = null;
  private last: { readonly at: number; readonly report: ReadinessReport } | null = null;

  constructor(
    private readonly checks: readonly ReadinessCheck[],
    opts: ReadinessProbeOptions = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? 2_000;
    this.maxAgeMs = opts.maxAgeMs ?? 1_000;
    this.now = opts.now ?? Date.now;
  }

  report(): Promise<ReadinessReport> {
    if (this.last !== null && this.now() - this.last.at < this.maxAgeMs) return Promise.resolve(this.last.report);
    if (this.running === null) {
      this.running = runReadiness(this.checks, this.timeoutMs).then((report) => {
        this.last = { at: this.now(), report };
        this.running = null;
        return report;
      });
    }
    return this.running;
  }
}
