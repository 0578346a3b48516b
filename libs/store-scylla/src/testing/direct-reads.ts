import type { types } from 'cassandra-driver';
import { id128ToBytes } from '@qim/store-core';
import type { Id128, ShardEpoch } from '@qim/store-core';
import type { ScyllaSession } from '../session/scylla-session';

/** Direct reads below the store (test support only). */
export class DirectReads {
  constructor(private readonly session: ScyllaSession) {}

  private get ks(): string {
    return this.session.config.keyspace;
  }

  async exec(cql: string, params: unknown[] = []): Promise<types.ResultSet> {
    return this.session.client.execute(cql.split('{ks}').join(this.ks), params, { prepare: true, executionProfile: 'write' });
  }

  /** The frontier row with its write stamp (null when absent). */
  async frontierRow(se: ShardEpoch): Promise<{ frontier: bigint; stamp: bigint } | null> {
    const row = (await this.exec('SELECT frontier, WRITETIME(frontier) AS stamp FROM {ks}.shard_frontier WHERE shard = ? AND epoch = ?', [se.shard, se.epoch]))
      .rows[0];
    return row ? { frontier: row['frontier'] as bigint, stamp: row['stamp'] as bigint } : null;
  }

  /** The dispatch-index rows of one id: every column, its TTL and stamp (`[]` when gone). */
  async indexRows(se: ShardEpoch, dispatchId: Id128): Promise<types.Row[]> {
    return (
      await this.exec(
        'SELECT shard, epoch, dispatch_id, canonical_offset, digest, TTL(digest) AS ttl, WRITETIME(digest) AS stamp ' +
          'FROM {ks}.dispatch_index WHERE shard = ? AND epoch = ? AND dispatch_id = ?',
        [se.shard, se.epoch, id128ToBytes(dispatchId)],
      )
    ).rows;
  }

  /** `SELECT COUNT(*)` of the dispatch-index partitions of `ids` (primary-key-only rows count too). */
  async indexCount(se: ShardEpoch, ids: readonly Id128[]): Promise<number> {
    const rs = await this.exec('SELECT COUNT(*) AS n FROM {ks}.dispatch_index WHERE shard = ? AND epoch = ? AND dispatch_id IN ?', [
      se.shard,
      se.epoch,
      ids.map(id128ToBytes),
    ]);
    return Number(rs.rows[0]!['n']);
  }

  /** The bucket proofs of a user: `[epoch, day, max_seq, stamp]`. */
  async proofRows(tenantId: Id128, userId: Id128): Promise<[number, bigint, bigint, bigint][]> {
    const rs = await this.exec(
      'SELECT epoch, day, max_seq, WRITETIME(max_seq) AS stamp FROM {ks}.mailbox_retention_bucket_v3 WHERE tenant_id = ? AND user_id = ?',
      [id128ToBytes(tenantId), id128ToBytes(userId)],
    );
    return rs.rows.map((r) => [r['epoch'] as number, r['day'] as bigint, r['max_seq'] as bigint, r['stamp'] as bigint]);
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
    const rs = await this.exec('SELECT mailbox_seq, entry, TTL(entry) AS ttl FROM {ks}.mailbox_entry WHERE tenant_id = ? AND user_id = ?', [
      id128ToBytes(tenantId),
      id128ToBytes(userId),
    ]);
    return rs.rows;
  }
}
