import type { Client } from 'cassandra-driver';
import type { ScyllaSession } from '../session/scylla-session';
import type { CqlDialect } from '../schema/dialect';
import { decideKeyspace } from '../schema/keyspace-decision';
import { detectDialect, readColumns, readReplication, readScyllaKeyspace } from '../schema/system-schema';
import { planTable } from '../schema/table-plan';
import type { TableSpec } from '../schema/table-spec';

/** The outcome of a readiness self-check: green only when `problems` is empty. */
export interface ReadinessReport {
  readonly ready: boolean;
  readonly dialect: CqlDialect | null;
  readonly problems: readonly string[];
}

/** Up hosts of the local DC known to the driver, against the LOCAL_QUORUM the RF needs. */
function hostProblems(client: Client, dataCenter: string, rf: number): string[] {
  const hosts = [...client.hosts.values()].filter((h) => h.datacenter === dataCenter);
  const up = hosts.filter((h) => h.isUp()).length;
  const quorum = Math.floor(rf / 2) + 1;
  const problems: string[] = [];
  if (hosts.length < rf) problems.push(`data center ${dataCenter} has ${hosts.length} node(s), fewer than RF ${rf}`);
  if (up < quorum) problems.push(`data center ${dataCenter} has ${up} node(s) up, LOCAL_QUORUM of RF ${rf} needs ${quorum}`);
  return problems;
}

/**
 * Reads the real system schema and re-checks what `migrate` established: the keyspace exists with
 * NetworkTopologyStrategy and exactly the configured RF in the configured DC, no tablets on
 * ScyllaDB, every table with every expected column and type, and enough live local-DC nodes for
 * LOCAL_QUORUM. A connected socket or a successful prepare is not readiness. Never throws for a
 * schema problem; a server error becomes a problem too.
 */
export async function checkReadiness(session: ScyllaSession, tables: readonly TableSpec[]): Promise<ReadinessReport> {
  const { client, config } = session;
  const problems: string[] = [];
  let dialect: CqlDialect | null = null;
  try {
    dialect = await detectDialect(client);
    const target = { dataCenter: config.localDataCenter, replicationFactor: config.replicationFactor };
    const decision = decideKeyspace(await readReplication(client, config.keyspace), await readScyllaKeyspace(client, config.keyspace), target);
    if (decision.verdict === 'absent') problems.push(`keyspace ${config.keyspace} does not exist`);
    if (decision.verdict === 'reject') problems.push(...decision.reasons.map((r) => `keyspace ${config.keyspace}: ${r}`));
    if (decision.verdict !== 'absent') {
      for (const spec of tables) {
        const plan = planTable(spec, await readColumns(client, config.keyspace, spec.name));
        if (plan.create) problems.push(`table ${spec.name} does not exist`);
        problems.push(...plan.problems, ...plan.add.map((a) => `${spec.name}.${a.column} is missing (run migrate)`));
      }
    }
    problems.push(...hostProblems(client, config.localDataCenter, config.replicationFactor));
  } catch (err) {
    problems.push(`readiness query failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  return Object.freeze({ ready: problems.length === 0, dialect, problems: Object.freeze(problems) });
}
