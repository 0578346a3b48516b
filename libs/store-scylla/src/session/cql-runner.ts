import type { Client, types } from 'cassandra-driver';
import { InvariantViolationError } from '@qim/store-core';
import type { InFlightLimit } from './in-flight-limit';
import { qualify } from './keyspace-token';
import type { StatementCounter } from './statement-counter';
import { applied, exec, mapDriverError } from './statements';
import type { NamedStatement, PageRequest } from './statements';

/** Rows per page of a multi-page read. */
export const PAGE_ROWS = 1000;

/** Result of an LWT: whether it applied and the current row the server returned when it did not. */
export interface LwtResult {
  readonly applied: boolean;
  /** The row returned with `[applied] = false` (condition columns or the whole row); null when none. */
  readonly current: types.Row | null;
}

/** One statement of an unlogged batch. */
export interface BatchPart {
  readonly statement: NamedStatement;
  readonly params: readonly unknown[];
}

/**
 * The one way both stores (message and mailbox) run their named statements on one client and
 * keyspace: always prepared, under the statement's profile and declared idempotence, driver errors
 * mapped to domain errors (`mapDriverError`), every execution counted by name in the store's
 * `StatementCounter` (LWTs apart), and every request holding one permit of the store's
 * `InFlightLimit` while the driver has it (backpressure instead of driver saturation).
 */
export class CqlRunner {
  private readonly cqlByName = new Map<string, string>();

  constructor(
    readonly client: Client,
    readonly keyspace: string,
    readonly counter: StatementCounter,
    readonly limit: InFlightLimit,
    /** True for the runner of reader-facing operations: its statements wait ahead of writers for a permit. */
    readonly reader = false,
  ) {}

  /** A runner on the same client, counter and in-flight bound whose statements take the reader queue. */
  forReaders(): CqlRunner {
    return new CqlRunner(this.client, this.keyspace, this.counter, this.limit, true);
  }

  private cqlOf(s: NamedStatement): string {
    let cql = this.cqlByName.get(s.name);
    if (cql === undefined) {
      cql = qualify(s.cql, this.keyspace);
      this.cqlByName.set(s.name, cql);
    }
    return cql;
  }

  private request<T>(send: () => Promise<T>): Promise<T> {
    return this.limit.run(async () => {
      const depth = this.counter.started();
      try {
        return await send();
      } finally {
        this.counter.settled(depth);
      }
    }, this.reader);
  }

  /** Executes `s`; `page` asks for one page of `fetchSize` rows starting at `pageState`. */
  run(s: NamedStatement, params: readonly unknown[], page?: PageRequest): Promise<types.ResultSet> {
    const cql = this.cqlOf(s);
    this.counter.record(s.name, s.profile === 'lwt');
    return this.request(() => exec(this.client, cql, params, s, page));
  }

  /**
   * Executes plain (non-conditional) writes as ONE unlogged batch: one request. Parts sharing a
   * partition key become one mutation per replica (durable together); parts of different partitions
   * are only sent together (callers keep such batches small). Each part keeps its own `USING TTL` /
   * `USING TIMESTAMP`; the batch is idempotent only when every part is.
   */
  async batch(parts: readonly BatchPart[]): Promise<void> {
    if (parts.some((p) => p.statement.profile !== 'write')) throw new InvariantViolationError('only plain writes may share a batch');
    for (const p of parts) this.counter.record(p.statement.name, false);
    const queries = parts.map((p) => ({ query: this.cqlOf(p.statement), params: p.params as unknown[] }));
    await this.request(async () => {
      try {
        await this.client.batch(queries, { prepare: true, logged: false, executionProfile: 'write', isIdempotent: parts.every((p) => p.statement.idempotent) });
      } catch (err) {
        throw mapDriverError(err, queries[0]?.query ?? 'BATCH');
      }
    });
  }

  /** Executes an LWT and reads `[applied]`. */
  async lwt(s: NamedStatement, params: readonly unknown[]): Promise<LwtResult> {
    if (s.profile !== 'lwt') throw new InvariantViolationError(`${s.name} is not an LWT`);
    const rs = await this.run(s, params);
    const ok = applied(rs);
    return { applied: ok, current: ok ? null : (rs.rows[0] ?? null) };
  }

  /** Executes a read and returns every row (all pages). */
  async rows(s: NamedStatement, params: readonly unknown[]): Promise<types.Row[]> {
    const out: types.Row[] = [];
    let pageState: string | undefined;
    do {
      const rs = await this.run(s, params, { fetchSize: PAGE_ROWS, ...(pageState ? { pageState } : {}) });
      out.push(...rs.rows);
      pageState = rs.pageState ?? undefined;
    } while (pageState);
    return out;
  }

  /** Executes a read and returns its single row or null. */
  async one(s: NamedStatement, params: readonly unknown[]): Promise<types.Row | null> {
    const rows = await this.rows(s, params);
    if (rows.length > 1) throw new InvariantViolationError(`${s.name} returned ${rows.length} rows for one key`);
    return rows[0] ?? null;
  }
}
