import { randomBytes } from 'node:crypto';
import { id128ToBytes } from '@qim/store-core';
import type { Id128 } from '@qim/store-core';
import { MESSAGE_CRASH_TEXT } from '@qim/store-contract/testing';
import type { MessageCrashPoint, MessageStoreHarness } from '@qim/store-contract/testing';
import type { ScyllaConfig } from '../config/scylla-config';
import { scyllaTestConfigFromEnv } from './scylla-test-env';
import { migrate } from '../migrate/migrate';
import type { MigrationReport } from '../migrate/migrate';
import { connectSession } from '../session/scylla-session';
import type { ScyllaSession } from '../session/scylla-session';
import type { ScyllaMessageFaultPoint, ScyllaMessageFaults } from '../message/scylla-message-faults';
import { MESSAGE_TABLES } from '../message/message-tables';
import { ScyllaMessageStore } from '../message/scylla-message-store';
import type { ScyllaMessageStoreOptions } from '../message/scylla-message-store';
import { SEQ_BUCKET_SIZE } from '../message/tables/record-table';
import { RECOVERY_PROGRESS_SCOPE } from '../message/tables/recovery-progress-table';
import { RECOVERY_BUCKET_MS } from '../message/tables/recovery-table';
import { StatementRecorder } from './statement-recorder';

/** Generous timeouts: 2 shared CPU cores, real DDL with schema agreement, real TTL waits. */
export const GATE_SETUP_TIMEOUT_MS = 300_000;
export const GATE_CASE_TIMEOUT_MS = 120_000;
/** The short aux TTL the contract run uses (the contract allows ≤ 3 000 ms on real time). */
export const GATE_AUX_TTL_MS = 3_000n;
/** A short claim lease, so the crash cases see a dead claimant taken over within a couple of seconds. */
export const GATE_CLAIM_LEASE_MS = 1_500n;

/** Commit lifetime of the contract's crash pairs (see `openCrashPair`). */
const CRASH_PAIR_AUX_TTL_MS = 20_000n;

/** The store's own fault point at each crash point of the contract. */
const SCYLLA_CRASH_POINTS: Readonly<Record<MessageCrashPoint, ScyllaMessageFaultPoint>> = Object.freeze({
  'reserve:after-recovery-entry': 'reserve:after-entry',
  'reserve:after-seq': 'reserve:after-entry-and-seq',
  'reserve:after-commit': 'reserve:after-commit',
  'put-record:after-record': 'put-record:after-record',
  'put-record:after-index': 'put-record:after-index',
});

/**
 * Test support (never imported by the store): one isolated keyspace per spec file on the gate's
 * real cluster, from `QIM_TEST_SCYLLA_*` (any missing variable throws: the gate fails, never skips),
 * created by the explicit `migrate` and dropped at the end. One shared session (with a statement
 * recorder); stores opened here do not close it.
 */
export class MessageGate {
  private constructor(
    readonly config: ScyllaConfig,
    readonly session: ScyllaSession,
    readonly recorder: StatementRecorder,
    readonly migration: MigrationReport,
  ) {}

  static async open(tag: string): Promise<MessageGate> {
    const config = scyllaTestConfigFromEnv(process.env, `_msg_${tag}_${randomBytes(3).toString('hex')}`);
    const recorder = new StatementRecorder();
    const session = await connectSession(config, { requestTracker: recorder });
    try {
      return new MessageGate(config, session, recorder, await migrate(session, MESSAGE_TABLES));
    } catch (err) {
      await session.close();
      throw err;
    }
  }

  /** A store on the shared session (its `close()` leaves the session open). */
  store(options: ScyllaMessageStoreOptions = {}, faults?: ScyllaMessageFaults): ScyllaMessageStore {
    const shared: ScyllaSession = { client: this.session.client, config: this.config, close: async () => undefined };
    return new ScyllaMessageStore(shared, {
      commitAuxTtlMs: GATE_AUX_TTL_MS,
      claimLeaseMs: GATE_CLAIM_LEASE_MS,
      ...options,
      ...(faults === undefined ? {} : { faults }),
    });
  }

  /** A store with its own session (its own connection pool), as a second writer process would have; `close()` closes it. */
  async separateStore(options: ScyllaMessageStoreOptions = {}): Promise<ScyllaMessageStore> {
    const session = await connectSession(this.config, { requestTracker: this.recorder });
    return new ScyllaMessageStore(session, { commitAuxTtlMs: GATE_AUX_TTL_MS, claimLeaseMs: GATE_CLAIM_LEASE_MS, ...options });
  }

  /** Plain test-only CQL (damage hooks, isolation); the store itself never deletes. */
  exec(cql: string, params: unknown[] = []): Promise<unknown> {
    return this.session.client.execute(cql.split('{ks}').join(this.config.keyspace), params, { prepare: true, executionProfile: 'write' });
  }

  /**
   * Isolation between cases sharing the keyspace: the recovery scan is not tenant-scoped, so the
   * hourly recovery partitions around now and the scan's progress are removed (deletes by the test only).
   */
  async clearRecoveryWindow(): Promise<void> {
    const hour = BigInt(Date.now()) / RECOVERY_BUCKET_MS;
    const buckets = [hour - 3n, hour - 2n, hour - 1n, hour, hour + 1n];
    await this.exec('DELETE FROM {ks}.commit_recovery_v2 WHERE hour_bucket IN ?', [buckets]);
    await this.exec('DELETE FROM {ks}.commit_recovery_progress WHERE scope = ?', [RECOVERY_PROGRESS_SCOPE]);
  }

  /** The contract harness over a fresh store (recovery window cleared first). */
  async harness(): Promise<MessageStoreHarness> {
    await this.clearRecoveryWindow();
    const store = this.store();
    const recorder = this.recorder;
    const start = recorder.reads;
    const peers: ScyllaMessageStore[] = [];
    const key = (t: Id128, c: Id128, seq: bigint) => [id128ToBytes(t), id128ToBytes(c), seq / SEQ_BUCKET_SIZE, seq];
    return {
      store,
      clock: null,
      commitAuxTtlMs: store.commitAuxTtlMs,
      openStore: async () => {
        const peer = await this.separateStore();
        peers.push(peer);
        return peer;
      },
      corruptRecord: async (t, c, seq) => {
        await this.exec('UPDATE {ks}.message_record SET record = ? WHERE tenant_id = ? AND conversation_id = ? AND seq_bucket = ? AND conversation_seq = ?', [
          Buffer.from('not a record'),
          ...key(t, c, seq),
        ]);
      },
      removeRecord: async (t, c, seq) => {
        await this.exec(
          'DELETE FROM {ks}.message_record WHERE tenant_id = ? AND conversation_id = ? AND seq_bucket = ? AND conversation_seq = ?',
          key(t, c, seq),
        );
      },
      openCrashPair: async (point) => {
        // commit facts live 20 s here (as in the gate's own crash cases): a retry may first wait out the
        // dead reserve's claim lease, and lease + retry must not outlast a lifetime fixed at its birth
        const lifetime = { commitAuxTtlMs: CRASH_PAIR_AUX_TTL_MS };
        const at = SCYLLA_CRASH_POINTS[point];
        const dying = this.store(lifetime, {
          at: (p) => {
            if (p === at) throw new Error(`${MESSAGE_CRASH_TEXT} ${point}`);
          },
        });
        const healthy = this.store(lifetime);
        peers.push(dying, healthy);
        return { dying, healthy };
      },
      rewindSequence: async (t, c, highestIssued) => {
        const rs = (await this.exec('UPDATE {ks}.conversation_sequence SET next = ? WHERE tenant_id = ? AND conversation_id = ? IF EXISTS', [
          highestIssued,
          id128ToBytes(t),
          id128ToBytes(c),
        ])) as { rows: { [k: string]: unknown }[] };
        if (rs.rows[0]?.['[applied]'] !== true) throw new Error(`no conversation_sequence row of ${t}/${c} to rewind`);
      },
      readCount: () => recorder.reads - start,
      close: async () => {
        await Promise.all(peers.map((p) => p.close()));
        await this.clearRecoveryWindow();
      },
    };
  }

  /** Drops the keyspace and closes the session. */
  async drop(): Promise<void> {
    try {
      await this.session.client.execute(`DROP KEYSPACE IF EXISTS ${this.config.keyspace}`, [], { executionProfile: 'write' });
    } finally {
      await this.session.close();
    }
  }
}
