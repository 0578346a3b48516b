import type { Client } from 'cassandra-driver';
import { exec } from '../session/statements';

/** Tables of the lane-watermark mailbox layout that the shard-frontier layout (ADR-0022 §7) replaced. */
export const LEGACY_LAYOUT_TABLES: readonly string[] = Object.freeze([
  'lane_dispatch',
  'dispatch_observation',
  'dispatch_progress',
  'dispatch_chunk',
  'completed_dispatch',
  'lane_watermark',
]);

/** Pure: the refusal for a keyspace holding `present` legacy tables; null when it holds none. */
export function legacyLayoutProblem(keyspace: string, present: readonly string[]): string | null {
  const found = LEGACY_LAYOUT_TABLES.filter((t) => present.includes(t));
  if (found.length === 0) return null;
  return (
    `keyspace ${keyspace} has ${found.join(', ')}, created by the lane-watermark layout — ` +
    `deploy the frontier layout in a new keyspace, or drop those tables after draining the mailbox`
  );
}

/** The tables of `keyspace` (one read of `system_schema.tables` at LOCAL_QUORUM). */
export async function tablesOf(client: Client, keyspace: string): Promise<string[]> {
  const rs = await exec(client, 'SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?', [keyspace], { profile: 'read', idempotent: true });
  return rs.rows.map((r) => String(r['table_name']));
}
