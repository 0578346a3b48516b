import { tracker } from 'cassandra-driver';
import type { ExecutionOptions, Host } from 'cassandra-driver';

/** The driver checks `instanceof RequestTracker`; its typings declare only an interface, the runtime has the class. */
const TrackerBase = (tracker as unknown as { RequestTracker: new () => object }).RequestTracker;

/** The driver's latency, `process.hrtime` form `[seconds, nanoseconds]`, in ns (0 when absent). */
function latencyNs(latency: unknown): bigint {
  if (!Array.isArray(latency) || latency.length !== 2) return 0n;
  return BigInt(latency[0] as number) * 1_000_000_000n + BigInt(latency[1] as number);
}

/** What the driver reported for one executed request. */
export interface RecordedStatement {
  readonly cql: string;
  readonly consistency: number | undefined;
  readonly serialConsistency: number | undefined;
  readonly prepared: boolean;
  readonly idempotent: boolean;
  readonly ok: boolean;
  /** When the driver wrote the request and when it reported the answer (monotonic ns: the tracker's latency before its call). */
  readonly startNs: bigint;
  readonly endNs: bigint;
}

/**
 * Round trips waited for one after another among `statements` (as the driver timed them): the
 * longest chain in which each request was written after the previous one was answered. Requests
 * in flight together count once.
 */
export function sequentialRoundTrips(statements: readonly Pick<RecordedStatement, 'startNs' | 'endNs'>[]): number {
  const byStart = [...statements].sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0));
  const depth: number[] = [];
  byStart.forEach((s, i) => {
    let before = 0;
    for (let j = 0; j < i; j++) if (byStart[j]!.endNs <= s.startNs) before = Math.max(before, depth[j]!);
    depth.push(before + 1);
  });
  return Math.max(0, ...depth);
}

/**
 * Test support: a driver `RequestTracker` that records the effective execution options of every
 * request (consistency, serial consistency, prepared, idempotent) as the driver resolved them from
 * the named profile, and when it was written and answered (`sequentialRoundTrips`). Also counts
 * reads (`SELECT`) for the contract harness.
 */
export class StatementRecorder extends TrackerBase implements tracker.RequestTracker {
  readonly statements: RecordedStatement[] = [];
  reads = 0;
  recording = false;

  private note(query: string | { query: string }[], options: ExecutionOptions, ok: boolean, latency: unknown): void {
    const endNs = process.hrtime.bigint();
    const cql = typeof query === 'string' ? query : query.map((q) => q.query).join('; ');
    if (/^\s*SELECT\b/i.test(cql) && !/\bsystem(_schema)?\./i.test(cql)) this.reads++;
    if (!this.recording) return;
    this.statements.push({
      cql,
      consistency: options.getConsistency(),
      serialConsistency: options.getSerialConsistency(),
      prepared: options.isPrepared() === true,
      idempotent: options.isIdempotent() === true,
      ok,
      startNs: endNs - latencyNs(latency),
      endNs,
    });
  }

  onSuccess(
    _host: Host,
    query: string | { query: string }[],
    _params: unknown,
    options: ExecutionOptions,
    _reqLength: number,
    _resLength: number,
    latency: number[],
  ): void {
    this.note(query, options, true, latency);
  }

  onError(
    _host: Host,
    query: string | { query: string }[],
    _params: unknown,
    options: ExecutionOptions,
    _reqLength: number,
    _err: Error,
    latency: number[],
  ): void {
    this.note(query, options, false, latency);
  }

  shutdown(): void {
    this.recording = false;
  }
}
