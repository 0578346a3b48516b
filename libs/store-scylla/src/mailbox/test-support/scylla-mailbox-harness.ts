import type { types } from 'cassandra-driver';
import { LANE_COUNT, id128ToBytes } from '@qim/store-core';
import type { Id128, MailboxGcConfig, MailboxStore, ShardEpoch } from '@qim/store-core';
import type { MailboxStoreHarness } from '@qim/store-contract/testing';
import type { ScyllaSession } from '../../session/scylla-session';
import { ScyllaMailboxStore } from '../scylla-mailbox-store';
import type { ScyllaMailboxStoreOptions } from '../scylla-mailbox-store';

const ALL_LANES = Array.from({ length: LANE_COUNT }, (_, lane) => lane);

/**
 * The contract harness of the Scylla mailbox store. Its damage hooks talk to the tables directly
 * through the driver — including a `DELETE` to simulate a lost bucket proof, which the store itself
 * never issues. Every store of one harness shares the spec file's keyspace; cases use random shards
 * and tenants, so nothing needs removing per case.
 */
export class ScyllaMailboxHarness implements MailboxStoreHarness {
  readonly clock = null;

  constructor(
    private readonly session: ScyllaSession,
    private readonly extra: Partial<Omit<ScyllaMailboxStoreOptions, 'session' | 'shardEpoch' | 'gc'>> = {},
  ) {}

  private get ks(): string {
    return this.session.config.keyspace;
  }

  private exec(cql: string, params: unknown[]): Promise<types.ResultSet> {
    return this.session.client.execute(cql, params, { prepare: true, executionProfile: 'write' });
  }

  async open(shardEpoch: ShardEpoch, gc: MailboxGcConfig): Promise<MailboxStore> {
    return new ScyllaMailboxStore({ ...this.extra, session: this.session, shardEpoch, gc });
  }

  async removeBucketProof(tenantId: Id128, userId: Id128, epoch: number, day: number): Promise<void> {
    await this.exec(`DELETE FROM ${this.ks}.mailbox_retention_bucket_v2 WHERE tenant_id = ? AND user_id = ? AND epoch = ? AND day = ?`, [
      id128ToBytes(tenantId),
      id128ToBytes(userId),
      epoch,
      BigInt(day),
    ]);
  }

  async readTrim(tenantId: Id128, userId: Id128): Promise<bigint | null> {
    const rs = await this.exec(`SELECT trim FROM ${this.ks}.mailbox_meta WHERE tenant_id = ? AND user_id = ?`, [id128ToBytes(tenantId), id128ToBytes(userId)]);
    const v: unknown = rs.rows[0]?.['trim'];
    return typeof v === 'bigint' ? v : null;
  }

  async corruptEntry(tenantId: Id128, userId: Id128, mailboxSeq: bigint): Promise<void> {
    await this.exec(`UPDATE ${this.ks}.mailbox_entry SET entry = ? WHERE tenant_id = ? AND user_id = ? AND mailbox_seq = ?`, [
      Buffer.from('not an entry'),
      id128ToBytes(tenantId),
      id128ToBytes(userId),
      mailboxSeq,
    ]);
  }

  async removeChunkCompletion(shard: number, dispatchId: Id128, lane: number, chunkId: number): Promise<void> {
    await this.exec(`DELETE FROM ${this.ks}.dispatch_chunk WHERE shard = ? AND dispatch_id = ? AND lane = ? AND chunk_id = ?`, [shard, id128ToBytes(dispatchId), lane, chunkId]);
  }

  async countDispatchFacts(shard: number, dispatchId: Id128): Promise<number> {
    const id = id128ToBytes(dispatchId);
    const mine = (rows: { get(c: string): unknown }[]): number => rows.filter((r) => id.equals(r.get('dispatch_id') as Buffer)).length;
    const progress = (await this.exec(`SELECT digest FROM ${this.ks}.dispatch_progress WHERE shard = ? AND dispatch_id = ?`, [shard, id])).rows.length;
    const observations = (await this.exec(`SELECT observed_offset FROM ${this.ks}.dispatch_observation WHERE shard = ? AND dispatch_id = ?`, [shard, id])).rows.length;
    const sources = mine((await this.exec(`SELECT dispatch_id FROM ${this.ks}.lane_dispatch WHERE shard = ? AND lane IN ?`, [shard, ALL_LANES])).rows);
    const chunks = (await this.exec(`SELECT chunk_id FROM ${this.ks}.dispatch_chunk WHERE shard = ? AND dispatch_id = ? AND lane IN ?`, [shard, id, ALL_LANES])).rows.length;
    const completed = mine((await this.exec(`SELECT dispatch_id FROM ${this.ks}.completed_dispatch WHERE shard = ?`, [shard])).rows);
    return progress + observations + sources + chunks + completed;
  }

  async close(): Promise<void> {
    return Promise.resolve();
  }
}
