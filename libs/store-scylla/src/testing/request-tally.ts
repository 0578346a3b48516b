import { tracker } from 'cassandra-driver';
import type { ExecutionOptions, Host } from 'cassandra-driver';

/** The driver checks `instanceof RequestTracker`; its typings declare only an interface, the runtime has the class. */
const TrackerBase = (tracker as unknown as { RequestTracker: new () => object }).RequestTracker;

type Query = string | { query: string }[];

/**
 * Test support: a driver `RequestTracker` that tallies what the driver really executed — requests,
 * LWT requests (CQL with an `IF` condition) and failed requests with their error names (a saturated
 * connection reports `BusyConnectionError` here even when a retry hides it from the caller).
 */
export class RequestTally extends TrackerBase implements tracker.RequestTracker {
  requests = 0;
  lwts = 0;
  readonly errors: string[] = [];

  private note(query: Query): void {
    const parts = typeof query === 'string' ? [query] : query.map((q) => q.query);
    this.requests += 1;
    if (parts.some((q) => /\sIF\s/i.test(q))) this.lwts += 1;
  }

  onSuccess(_host: Host, query: Query, _params: unknown, _options: ExecutionOptions): void {
    this.note(query);
  }

  onError(_host: Host, query: Query, _params: unknown, _options: ExecutionOptions, _latency: unknown, err: Error): void {
    this.note(query);
    this.errors.push(err?.name ?? String(err));
  }

  reset(): void {
    this.requests = 0;
    this.lwts = 0;
    this.errors.length = 0;
  }

  shutdown(): void {
    this.reset();
  }
}
