import { tracker } from 'cassandra-driver';
import type { ExecutionOptions, Host } from 'cassandra-driver';

/** The driver checks `instanceof RequestTracker`; its typings declare only an interface, the runtime has the class. */
const TrackerBase = (tracker as unknown as { RequestTracker: new () => object }).RequestTracker;

/** What the driver reported for one executed request. */
export interface RecordedStatement {
  readonly cql: string;
  readonly consistency: number | undefined;
  readonly serialConsistency: number | undefined;
  readonly prepared: boolean;
  readonly idempotent: boolean;
  readonly ok: boolean;
}

/**
 * Test support: a driver `RequestTracker` that records the effective execution options of every
 * request (consistency, serial consistency, prepared, idempotent) as the driver resolved them from
 * the named profile. Also counts reads (`SELECT`) for the contract harness.
 */
export class StatementRecorder extends TrackerBase implements tracker.RequestTracker {
  readonly statements: RecordedStatement[] = [];
  reads = 0;
  recording = false;

  private note(query: string | { query: string }[], options: ExecutionOptions, ok: boolean): void {
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
    });
  }

  onSuccess(_host: Host, query: string | { query: string }[], _params: unknown, options: ExecutionOptions): void {
    this.note(query, options, true);
  }

  onError(_host: Host, query: string | { query: string }[], _params: unknown, options: ExecutionOptions): void {
    this.note(query, options, false);
  }

  shutdown(): void {
    this.recording = false;
  }
}
