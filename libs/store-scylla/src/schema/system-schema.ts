import { errors, types } from 'cassandra-driver';
import type { Client } from 'cassandra-driver';
import { exec, mapDriverError } from '../session/statements';
import type { CqlDialect } from './dialect';
import { isMissingTableMessage } from './dialect';
import type { ReplicationFact, ScyllaKeyspacesFact } from './keyspace-decision';

/** Readers of the server's own schema tables (`system_schema.*`), all prepared reads at LOCAL_QUORUM. */
const READ = { profile: 'read', idempotent: true } as const;

const SCYLLA_KEYSPACES = 'scylla_keyspaces';

async function selectScyllaKeyspaces(client: Client, keyspace: string): Promise<types.ResultSet | null> {
  try {
    return await client.execute('SELECT * FROM system_schema.scylla_keyspaces WHERE keyspace_name = ?', [keyspace], {
      prepare: true,
      executionProfile: 'read',
      isIdempotent: true,
    });
  } catch (err) {
    const invalid = err instanceof errors.ResponseError && err.code === types.responseErrorCodes.invalid;
    if (invalid && isMissingTableMessage(err.message, SCYLLA_KEYSPACES)) return null;
    throw mapDriverError(err, 'SELECT scylla_keyspaces');
  }
}

/** ScyllaDB when `system_schema.scylla_keyspaces` exists, Apache Cassandra when the server says it does not. */
export async function detectDialect(client: Client): Promise<CqlDialect> {
  return (await selectScyllaKeyspaces(client, 'system')) === null ? 'cassandra' : 'scylla';
}

/** The keyspace's ScyllaDB extension row (or its absence / the table's absence). */
export async function readScyllaKeyspace(client: Client, keyspace: string): Promise<ScyllaKeyspacesFact> {
  const rs = await selectScyllaKeyspaces(client, keyspace);
  if (rs === null) return { kind: 'table-absent' };
  const row = rs.rows[0];
  if (row === undefined) return { kind: 'no-row' };
  const storageType: unknown = row['storage_type'];
  const initialTablets: unknown = row['initial_tablets'];
  return {
    kind: 'row',
    storageType: typeof storageType === 'string' ? storageType : null,
    initialTablets: typeof initialTablets === 'number' ? initialTablets : null,
  };
}

/** `system_schema.keyspaces.replication` of the keyspace, null when it does not exist. */
export async function readReplication(client: Client, keyspace: string): Promise<ReplicationFact> {
  const rs = await exec(client, 'SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = ?', [keyspace], READ);
  const row = rs.rows[0];
  if (row === undefined) return null;
  const replication: unknown = row['replication'];
  if (replication === null || typeof replication !== 'object') return {};
  return Object.freeze({ ...(replication as Record<string, string>) });
}

/** Column name → CQL type of a table, null when the table does not exist. */
export async function readColumns(client: Client, keyspace: string, table: string): Promise<Record<string, string> | null> {
  const rs = await exec(client, 'SELECT column_name, type FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?', [keyspace, table], READ);
  if (rs.rows.length === 0) return null;
  const columns: Record<string, string> = {};
  for (const row of rs.rows) columns[String(row['column_name'])] = String(row['type']);
  return columns;
}
