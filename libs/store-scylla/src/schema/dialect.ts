/**
 * Which CQL server we talk to. Decided from the server, never from a flag: ScyllaDB has the schema
 * table `system_schema.scylla_keyspaces`, Apache Cassandra does not (selecting from it is an
 * "invalid request: table … does not exist" error there). That table is exactly the one the
 * tablets check reads, so the signal and the check cannot disagree.
 */
export type CqlDialect = 'scylla' | 'cassandra';

/** `CREATE KEYSPACE` for the dialect: NetworkTopologyStrategy; on ScyllaDB tablets disabled (LWT needs vnodes). */
export function createKeyspaceCql(keyspace: string, dataCenter: string, replicationFactor: number, dialect: CqlDialect): string {
  const dc = dataCenter.replace(/'/g, "''");
  const base = `CREATE KEYSPACE IF NOT EXISTS ${keyspace} WITH replication = {'class': 'NetworkTopologyStrategy', '${dc}': ${replicationFactor}}`;
  return dialect === 'scylla' ? `${base} AND tablets = {'enabled': false}` : base;
}

/** True when a driver error message says the queried table does not exist (Cassandra: "table x does not exist"; older: "unconfigured table x"). */
export function isMissingTableMessage(message: string, table: string): boolean {
  const m = message.toLowerCase();
  return m.includes(table) && (m.includes('does not exist') || m.includes('unconfigured table'));
}
