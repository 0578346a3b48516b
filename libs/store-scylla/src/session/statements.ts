import { ExecutionProfile, errors, types } from 'cassandra-driver';
import type { Client } from 'cassandra-driver';
import { InvariantViolationError, UnavailableError, u64FromI64, u64ToI64 } from '@qim/store-core';

/**
 * Named execution profiles. Every statement runs at LOCAL_QUORUM; the `lwt` profile (the only one
 * for `IF NOT EXISTS` / `IF col = ?`) also sets the Paxos phase to LOCAL_SERIAL.
 */
export type ProfileName = 'read' | 'write' | 'lwt';

export const PROFILE_NAMES: readonly ProfileName[] = Object.freeze(['read', 'write', 'lwt']);

/** Builds the three profiles (one set per client; the driver keeps them by name). */
export function executionProfiles(): ExecutionProfile[] {
  const { localQuorum, localSerial } = types.consistencies;
  return [
    new ExecutionProfile('read', { consistency: localQuorum }),
    new ExecutionProfile('write', { consistency: localQuorum }),
    new ExecutionProfile('lwt', { consistency: localQuorum, serialConsistency: localSerial }),
    // The driver's fallback profile: anything not naming a profile still runs at LOCAL_QUORUM.
    new ExecutionProfile('default', { consistency: localQuorum, serialConsistency: localSerial }),
  ];
}

/** How one statement runs. */
export interface StatementOptions {
  readonly profile: ProfileName;
  /** Declared per statement: true when re-executing it cannot change the outcome (plain same-value writes, reads). */
  readonly idempotent: boolean;
}

/**
 * A statement declared once beside its table, with a stable name (`table.action`): CQL with the
 * `{ks}` token, its profile and idempotence. The name is what `StatementCounter` reports, so tests
 * and benchmarks can say how many statements and LWTs each step of an operation ran.
 */
export interface NamedStatement extends StatementOptions {
  readonly name: string;
  readonly cql: string;
}

/** Declares a named statement. LWT text (`IF …`) must use the `lwt` profile and vice versa. */
export function named(name: string, cql: string, options: StatementOptions): NamedStatement {
  const conditional = /\sIF\s/i.test(cql);
  if (conditional !== (options.profile === 'lwt')) {
    throw new InvariantViolationError(`statement ${name}: profile ${options.profile} does not match its CQL: ${cql}`);
  }
  return Object.freeze({ name, cql, profile: options.profile, idempotent: options.idempotent });
}

/** Plain read at LOCAL_QUORUM. */
export const READ: StatementOptions = Object.freeze({ profile: 'read', idempotent: true });
/** Plain same-value write at LOCAL_QUORUM. */
export const WRITE: StatementOptions = Object.freeze({ profile: 'write', idempotent: true });
/** Conditional write (LOCAL_SERIAL Paxos, LOCAL_QUORUM commit). Never retried blindly by the driver. */
export const LWT: StatementOptions = Object.freeze({ profile: 'lwt', idempotent: false });

/** Response codes (and the CAS "write unknown" code 0x1700) that mean "the cluster could not answer now". */
const TRANSIENT_CODES = new Set<number>([
  types.responseErrorCodes.unavailableException,
  types.responseErrorCodes.overloaded,
  types.responseErrorCodes.isBootstrapping,
  types.responseErrorCodes.writeTimeout,
  types.responseErrorCodes.readTimeout,
  types.responseErrorCodes.readFailure,
  types.responseErrorCodes.writeFailure,
  0x1700,
]);

/** Maps a driver failure to a domain error: transient → `UnavailableError`; anything else → `InvariantViolationError`. */
export function mapDriverError(err: unknown, cql: string): Error {
  const transient =
    err instanceof errors.NoHostAvailableError ||
    err instanceof errors.OperationTimedOutError ||
    err instanceof errors.BusyConnectionError ||
    // The connection to the coordinator closed mid-request (node killed or restarted): the driver does
    // not retry a non-idempotent statement, and its outcome is unknown — retryable, never an invariant.
    (err instanceof Error && (err as { isSocketError?: boolean }).isSocketError === true) ||
    (err instanceof errors.ResponseError && TRANSIENT_CODES.has(err.code));
  const reason = err instanceof Error ? err.message : String(err);
  if (transient) return new UnavailableError(`CQL unavailable: ${reason}`, { cause: err });
  return new InvariantViolationError(`CQL rejected (${cql.split(/\s+/).slice(0, 4).join(' ')} …): ${reason}`, { cause: err });
}

/** Paging of one read request: `fetchSize` rows starting at `pageState` (no automatic paging). */
export interface PageRequest {
  readonly fetchSize: number;
  readonly pageState?: string;
}

/**
 * Sends one prepared statement under its named profile with its declared idempotence. `cql` is
 * fully qualified (no `{ks}` token). Driver errors are mapped by `mapDriverError`. The stores'
 * statements go through `CqlRunner` (named, counted, bounded in flight), which calls this; only the
 * schema reads of `migrate`/`checkReadiness` (`system_schema`) call it directly.
 */
export async function exec(client: Client, cql: string, params: readonly unknown[], options: StatementOptions, page?: PageRequest): Promise<types.ResultSet> {
  try {
    return await client.execute(cql, params as unknown[], {
      prepare: true,
      executionProfile: options.profile,
      isIdempotent: options.idempotent,
      ...(page ? { fetchSize: page.fetchSize, ...(page.pageState ? { pageState: page.pageState } : {}), autoPage: false } : {}),
    });
  } catch (err) {
    throw mapDriverError(err, cql);
  }
}

/** The `[applied]` flag of an LWT result; a result without it is an invariant violation. */
export function applied(rs: types.ResultSet): boolean {
  const row = rs.rows[0];
  const flag: unknown = row?.['[applied]'];
  if (typeof flag !== 'boolean') throw new InvariantViolationError('LWT result has no [applied] column');
  return flag;
}

/** u64 → CQL `bigint` (bit 63 set → `InvariantViolationError`, before anything is sent). */
export function toCqlBigint(v: bigint, what: string): bigint {
  return u64ToI64(v, what);
}

/** CQL `bigint` (bigint with `useBigIntAsLong`) → u64; null, negative or non-integer → `InvariantViolationError`. */
export function fromCqlBigint(v: unknown, what: string): bigint {
  if (typeof v === 'bigint' || (typeof v === 'number' && Number.isSafeInteger(v))) return u64FromI64(v, what);
  throw new InvariantViolationError(`${what}: expected a CQL bigint, got ${v === null ? 'null' : typeof v}`);
}
