import type { types } from 'cassandra-driver';
import { LANE_COUNT, id128ToBytes } from '@qim/store-core';
import type { Id128 } from '@qim/store-core';
import type { ScyllaSession } from '../../session/scylla-session';

const ALL_LANES = Array.from({ length: LANE_COUNT }, (_, lane) => lane);

/** A bookkeeping row as the driver sees it, with the TTL of one of its regular columns. */
export interface FactRow {
  readonly table: string;
  readonly row: types.Row;
  readonly ttl: number | null;
}

/** Direct reads below the store (test support only). */
export class DirectReads {
  constructor(private readonly session: ScyllaSession) {}

  private get ks(): string {
    return this.session.config.keyspace;
  }

  async exec(cql: string, params: unknown[] = []): Promise<types.ResultSet> {
    return this.session.client.execute(cql.split('{ks}').join(this.ks), params, { prepare: true, executionProfile: 'write' });
  }

  /** Every live bookkeeping row of a dispatch (progress, observations, 64-lane sources, chunks, completed index). */
  async dispatchFacts(shard: number, dispatchId: Id128): Promise<FactRow[]> {
    const id = id128ToBytes(dispatchId);
    const out: FactRow[] = [];
    const add = (table: string, rows: types.Row[]): void => {
      for (const row of rows) out.push({ table, row, ttl: typeof row['ttl'] === 'number' ? (row['ttl'] as number) : null });
    };
    add('dispatch_progress', (await this.exec('SELECT gc_scheduled_at, gc_phase, TTL(digest) AS ttl FROM {ks}.dispatch_progress WHERE shard = ? AND dispatch_id = ?', [shard, id])).rows);
    add('dispatch_observation', (await this.exec('SELECT observed_offset, recorded_at, TTL(recorded_at) AS ttl FROM {ks}.dispatch_observation WHERE shard = ? AND dispatch_id = ?', [shard, id])).rows);
    const sources = (await this.exec('SELECT lane, observed_offset, dispatch_id, TTL(dispatch_id) AS ttl FROM {ks}.lane_dispatch WHERE shard = ? AND lane IN ?', [shard, ALL_LANES])).rows;
    add('lane_dispatch', sources.filter((r) => id.equals(r['dispatch_id'] as Buffer)));
    add('dispatch_chunk', (await this.exec('SELECT lane, chunk_id, TTL(completed_at) AS ttl FROM {ks}.dispatch_chunk WHERE shard = ? AND dispatch_id = ? AND lane IN ?', [shard, id, ALL_LANES])).rows);
    const completed = (await this.exec('SELECT dispatch_id, gc_scheduled_at, TTL(max_observed_offset) AS ttl FROM {ks}.completed_dispatch WHERE shard = ?', [shard])).rows;
    add('completed_dispatch', completed.filter((r) => id.equals(r['dispatch_id'] as Buffer)));
    return out;
  }

  /** The GC deadline copies: progress `gc_scheduled_at` and the completed-index mirror (null = none / row gone). */
  async gcDeadlines(shard: number, dispatchId: Id128): Promise<{ progress: bigint | null; index: bigint | null }> {
    const facts = await this.dispatchFacts(shard, dispatchId);
    const pick = (table: string): bigint | null => (facts.find((f) => f.table === table)?.row['gc_scheduled_at'] as bigint | null | undefined) ?? null;
    return { progress: pick('dispatch_progress'), index: pick('completed_dispatch') };
  }

  /** The raw retention meta row of a user (null when absent). */
  async retentionMeta(tenantId: Id128, userId: Id128): Promise<types.Row | null> {
    const rs = await this.exec('SELECT * FROM {ks}.mailbox_retention_meta WHERE tenant_id = ? AND user_id = ?', [id128ToBytes(tenantId), id128ToBytes(userId)]);
    return rs.rows[0] ?? null;
  }

  /** The raw `mailbox_meta` (trim) row of a user (null when absent). */
  async trimRow(tenantId: Id128, userId: Id128): Promise<types.Row | null> {
    const rs = await this.exec('SELECT trim FROM {ks}.mailbox_meta WHERE tenant_id = ? AND user_id = ?', [id128ToBytes(tenantId), id128ToBytes(userId)]);
    return rs.rows[0] ?? null;
  }

  /** The entry rows of a user with the TTL of their blob. */
  async entryRows(tenantId: Id128, userId: Id128): Promise<types.Row[]> {
    const rs = await this.exec('SELECT mailbox_seq, entry, TTL(entry) AS ttl FROM {ks}.mailbox_entry WHERE tenant_id = ? AND user_id = ?', [id128ToBytes(tenantId), id128ToBytes(userId)]);
    return rs.rows;
  }
}
