import { ExecutionProfile, errors, types } from 'cassandra-driver';
import type { Client } from 'cassandra-driver';
import { InvariantViolationError, UnavailableError, u64FromI64, u64ToI64 } from '@qim/store-core';
import { qualify } from '../schema/table-spec';

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

/** A statement defined beside its table: CQL with the `{ks}` token, its profile and idempotence. */
export interface CqlStatement extends StatementOptions {
  readonly cql: string;
}

/** Declares a statement. LWT text (`IF …`) must use the `lwt` profile and vice versa. */
export function statement(cql: string, options: StatementOptions): CqlStatement {
  const conditional = /\sIF\s/i.test(cql);
  if (conditional !== (options.profile === 'lwt')) {
    throw new InvariantViolationError(`statement profile ${options.profile} does not match its CQL: ${cql}`);
  }
  return Object.freeze({ cql, profile: options.profile, idempotent: options.idempotent });
}

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

/**
 * Executes a prepared statement under its named profile with its declared idempotence. `cql` is
 * fully qualified (no `{ks}` token). Driver errors are mapped by `mapDriverError`.
 */
export async function exec(client: Client, cql: string, params: readonly unknown[], options: StatementOptions): Promise<types.ResultSet> {
  try {
    return await client.execute(cql, params as unknown[], {
      prepare: true,
      executionProfile: options.profile,
      isIdempotent: options.idempotent,
    });
  } catch (err) {
    throw mapDriverError(err, cql);
  }
}

/** A statement bound to a keyspace: `run(params)` executes it prepared with its own options. */
export interface BoundStatement extends CqlStatement {
  run(params: readonly unknown[]): Promise<types.ResultSet>;
}

/** Binds a statement to a client and keyspace (replaces `{ks}` once). */
export function bind(client: Client, keyspace: string, s: CqlStatement): BoundStatement {
  const cql = qualify(s.cql, keyspace);
  return Object.freeze({ cql, profile: s.profile, idempotent: s.idempotent, run: (params: readonly unknown[]) => exec(client, cql, params, s) });
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
