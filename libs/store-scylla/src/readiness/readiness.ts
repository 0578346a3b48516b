import type { Client } from 'cassandra-driver';
import type { ScyllaSession } from '../session/scylla-session';
import type { CqlDialect } from '../schema/dialect';
import { decideKeyspace } from '../schema/keyspace-decision';
import { detectDialect, readColumns, readReplication, readScyllaKeyspace } from '../schema/system-schema';
import { planTable } from '../schema/table-plan';
import type { TableSpec } from '../schema/table-spec';
import { legacyLayoutProblem, tablesOf } from '../migrate/legacy-layout';
import { dataCenterSizeProblems } from '../schema/data-center';

/** One check of the readiness self-check and what it found (passed when `problems` is empty). */
export interface ReadinessCheckOutcome {
  /** What was checked: `keyspace <name> …`, `table <name>`, `data center <dc> …`. */
  readonly check: string;
  readonly problems: readonly string[];
}

/** The outcome of a readiness self-check: green only when `problems` is empty. */
export interface ReadinessReport {
  readonly ready: boolean;
  readonly dialect: CqlDialect | null;
  /** Every problem of every check, in check order. */
  readonly problems: readonly string[];
  /** Each check that ran, in order (tables are not checked in a missing keyspace). */
  readonly checks: readonly ReadinessCheckOutcome[];
}

/** Up hosts of the local DC known to the driver, against the LOCAL_QUORUM the RF needs. */
function hostProblems(client: Client, dataCenter: string, rf: number): string[] {
  const hosts = [...client.hosts.values()].filter((h) => h.datacenter === dataCenter);
  const up = hosts.filter((h) => h.isUp()).length;
  const quorum = Math.floor(rf / 2) + 1;
  const problems: string[] = [...dataCenterSizeProblems(client, dataCenter, rf)];
  if (up < quorum) problems.push(`data center ${dataCenter} has ${up} node(s) up, LOCAL_QUORUM of RF ${rf} needs ${quorum}`);
  return problems;
}

/**
 * Reads the real system schema and re-checks what `migrate` established: the keyspace exists with
 * NetworkTopologyStrategy and exactly the configured RF in the configured DC, no tablets on
 * ScyllaDB, no table of the lane-watermark layout (ADR-0022 §7), every table with every expected
 * column and type, and enough live local-DC nodes for
 * LOCAL_QUORUM. A connected socket or a successful prepare is not readiness. Never throws for a
 * schema problem; a server error becomes a problem too.
 */
export async function checkReadiness(session: ScyllaSession, tables: readonly TableSpec[]): Promise<ReadinessReport> {
  const { client, config } = session;
  const { keyspace, localDataCenter: dc, replicationFactor: rf } = config;
  const checks: ReadinessCheckOutcome[] = [];
  const record = (check: string, problems: readonly string[]) => checks.push(Object.freeze({ check, problems: Object.freeze([...problems]) }));
  let dialect: CqlDialect | null = null;
  try {
    dialect = await detectDialect(client);
    const decision = decideKeyspace(await readReplication(client, keyspace), await readScyllaKeyspace(client, keyspace), {
      dataCenter: dc,
      replicationFactor: rf,
    });
    if (decision.verdict === 'absent') record(`keyspace ${keyspace}`, [`keyspace ${keyspace} does not exist`]);
    else record(`keyspace ${keyspace}`, decision.verdict === 'reject' ? decision.reasons.map((r) => `keyspace ${keyspace}: ${r}`) : []);
    if (decision.verdict !== 'absent') {
      const legacy = legacyLayoutProblem(keyspace, await tablesOf(client, keyspace));
      record(`keyspace ${keyspace} holds no lane-watermark layout table`, legacy === null ? [] : [legacy]);
      for (const spec of tables) {
        const plan = planTable(spec, await readColumns(client, keyspace, spec.name));
        const absent = plan.create ? [`table ${spec.name} does not exist`] : [];
        record(`table ${spec.name}`, [...absent, ...plan.problems, ...plan.add.map((a) => `${spec.name}.${a.column} is missing (run migrate)`)]);
      }
    }
    record(`data center ${dc} nodes for LOCAL_QUORUM of RF ${rf}`, hostProblems(client, dc, rf));
  } catch (err) {
    record('readiness query', [`readiness query failed: ${err instanceof Error ? err.message : String(err)}`]);
  }
  const problems = checks.flatMap((c) => c.problems);
  return Object.freeze({ ready: problems.length === 0, dialect, problems: Object.freeze(problems), checks: Object.freeze(checks) });
}
