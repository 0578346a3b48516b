import { statement } from '../../session/statements';
import type { CqlStatement, StatementOptions } from '../../session/statements';

/**
 * A mailbox statement with a stable name (`table.action`). The name is what the statement counter
 * reports, so benchmarks and tests can say how many LWTs each step of an operation ran.
 */
export interface NamedStatement extends CqlStatement {
  readonly name: string;
}

/** Declares a named statement (profile/IF consistency checked by `statement`). */
export function named(name: string, cql: string, options: StatementOptions): NamedStatement {
  return Object.freeze({ ...statement(cql, options), name });
}

/** Plain read at LOCAL_QUORUM. */
export const READ: StatementOptions = Object.freeze({ profile: 'read', idempotent: true });
/** Plain same-value write at LOCAL_QUORUM. */
export const WRITE: StatementOptions = Object.freeze({ profile: 'write', idempotent: true });
/** Conditional write (LOCAL_SERIAL Paxos, LOCAL_QUORUM commit). Never retried blindly by the driver. */
export const LWT: StatementOptions = Object.freeze({ profile: 'lwt', idempotent: false });
