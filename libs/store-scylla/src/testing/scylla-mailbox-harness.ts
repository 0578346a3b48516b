import type { types } from 'cassandra-driver';
import { id128ToBytes } from '@qim/store-core';
import type { Id128, MailboxGcConfig, MailboxStore, ShardEpoch } from '@qim/store-core';
import type { MailboxFaults, MailboxStoreHarness } from '@qim/store-contract/testing';
import type { ScyllaSession } from '../session/scylla-session';
import { ScyllaMailboxStore } from '../mailbox/scylla-mailbox-store';
import type { ScyllaMailboxStoreOptions } from '../mailbox/scylla-mailbox-store';

/**
 * The contract harness of the Scylla mailbox store (real server TTLs: `clock = null`). Its damage
 * hooks talk to the tables directly through the driver — including a `DELETE` to simulate a lost
 * bucket proof, which the store itself never issues. Every store of one harness shares the spec
 * file's keyspace; cases use random shards and tenants, so nothing needs removing per case.
 */
export class ScyllaMailboxHarness implements MailboxStoreHarness {
  readonly clock = null;

  constructor(
    private readonly session: ScyllaSession,
    private readonly extra: Partial<Omit<ScyllaMailboxStoreOptions, 'session' | 'shardEpoch' | 'gc' | 'faults'>> = {},
  ) {}

  private get ks(): string {
    return this.session.config.keyspace;
  }

  private exec(cql: string, params: unknown[]): Promise<types.ResultSet> {
    return this.session.client.execute(cql, params, { prepare: true, executionProfile: 'write' });
  }

  async open(shardEpoch: ShardEpoch, gc: MailboxGcConfig, faults?: MailboxFaults, clockLagMs = 0n): Promise<MailboxStore> {
    const clock = clockLagMs === 0n ? {} : { clock: { nowMs: () => BigInt(Date.now()) - clockLagMs } };
    return new ScyllaMailboxStore({ ...this.extra, session: this.session, shardEpoch, gc, ...(faults ? { faults } : {}), ...clock });
  }

  /** Rewrites the meta row's format version as 3, or nulls its active ledger (a plain write, later than the row's Paxos stamps). */
  async damageRetentionMeta(tenantId: Id128, userId: Id128, damage: 'old-version' | 'partial'): Promise<void> {
    const set = damage === 'old-version' ? 'retention_format_version = 3' : 'active_ledger = null';
    await this.exec(`UPDATE ${this.ks}.mailbox_retention_meta SET ${set} WHERE tenant_id = ? AND user_id = ?`, [id128ToBytes(tenantId), id128ToBytes(userId)]);
  }

  /**
   * Deletes the proof row at exactly its current write stamp (its seq): the proof is gone as if
   * lost, and a later, higher seq written by the store still lands (a wall-clock delete stamp would
   * shadow every seq-stamped write of the key forever).
   */
  async removeBucketProof(tenantId: Id128, userId: Id128, epoch: number, day: number): Promise<void> {
    const key = [id128ToBytes(tenantId), id128ToBytes(userId), epoch, BigInt(day)];
    const where = 'WHERE tenant_id = ? AND user_id = ? AND epoch = ? AND day = ?';
    const rs = await this.exec(`SELECT WRITETIME(max_seq) AS stamp FROM ${this.ks}.mailbox_retention_bucket_v3 ${where}`, key);
    const stamp: unknown = rs.rows[0]?.['stamp'];
    if (typeof stamp !== 'bigint') return;
    await this.exec(`DELETE FROM ${this.ks}.mailbox_retention_bucket_v3 USING TIMESTAMP ? ${where}`, [stamp, ...key]);
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

  async dispatchIndexed(shardEpoch: ShardEpoch, dispatchId: Id128): Promise<boolean> {
    const rs = await this.exec(`SELECT canonical_offset FROM ${this.ks}.dispatch_index WHERE shard = ? AND epoch = ? AND dispatch_id = ?`, [
      shardEpoch.shard,
      shardEpoch.epoch,
      id128ToBytes(dispatchId),
    ]);
    return rs.rows.length > 0;
  }

  async close(): Promise<void> {
    return Promise.resolve();
  }
}
