import { Client } from 'cassandra-driver';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** True when the coordinator and all its peers report the same schema version. */
async function schemaAgreed(client: Client): Promise<boolean> {
  const local = (await client.execute('SELECT schema_version FROM system.local')).first()?.['schema_version'];
  const peers = (await client.execute('SELECT schema_version FROM system.peers')).rows.map((r) => r['schema_version']);
  return local !== undefined && peers.every((v) => String(v) === String(local));
}

/**
 * Reads a keyspace's replication from the 3-node cluster's system schema once every node agrees
 * on the schema (a DDL reaches the other nodes with a delay). The RF/DC drill uses it to check that
 * a refused start altered nothing; the checker itself uses the HTTP API only.
 */
export async function keyspaceReplication(contactPoints: readonly string[], keyspace: string, agreementMs = 30_000): Promise<Record<string, string> | null> {
  const port = Number(contactPoints[0]?.split(':')[1] ?? 9042);
  const client = new Client({ contactPoints: [...contactPoints], localDataCenter: 'datacenter1', protocolOptions: { port } });
  try {
    await client.connect();
    const deadline = Date.now() + agreementMs;
    while (!(await schemaAgreed(client)) && Date.now() < deadline) await sleep(500);
    const rs = await client.execute('SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = ?', [keyspace], { prepare: true });
    const row = rs.first();
    return row ? (row['replication'] as Record<string, string>) : null;
  } finally {
    await client.shutdown();
  }
}
