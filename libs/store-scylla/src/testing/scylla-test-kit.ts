import type { BackendTestKit } from '@qim/store-core/testing';
import { ALL_TABLES } from '../all-tables';
import type { ScyllaBackendConfig } from '../backend/scylla-env';
import { scyllaStoreConfig } from '../backend/scylla-backend-module';
import { ScyllaMailboxStore } from '../mailbox/scylla-mailbox-store';
import { ScyllaMessageStore } from '../message/scylla-message-store';
import { migrate } from '../migrate/migrate';
import { connectSession } from '../session/scylla-session';
import type { ScyllaSession } from '../session/scylla-session';

/** What the Scylla kit lets a test read of its keyspace. */
export interface ScyllaInspection {
  readonly kind: 'scylla';
  readonly keyspace: string;
  /** Every table the stores use. */
  readonly tables: readonly string[];
  /** The rows of a `SELECT` (name tables as `<keyspace>.<table>`), paged. */
  rows(cql: string): AsyncGenerator<Record<string, unknown>>;
  /** `SELECT COUNT(*)` of `table` in the keyspace. */
  count(table: string): Promise<number>;
}

/** Keyspaces a kit may drop: made for one soak, benchmark or test run. */
const SCRATCH_KEYSPACE = /^qim_(soak|bench|test)_[a-z0-9_]+$/;

async function dropKeyspace(session: ScyllaSession, keyspace: string): Promise<void> {
  if (!SCRATCH_KEYSPACE.test(keyspace)) throw new Error(`refusing to drop keyspace ${keyspace}: not a scratch keyspace (${SCRATCH_KEYSPACE.source})`);
  await session.client.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`);
}

/**
 * The Scylla backend's test kit: one session, every table migrated (a scratch keyspace dropped first
 * and, unless `keep`, on `close()`), both stores over it.
 */
export const scyllaTestKit: BackendTestKit<ScyllaBackendConfig, ScyllaInspection> = {
  kind: 'scylla',
  open: async (cfg, { clock, tuning = {}, scratch = false, keep = false }) => {
    const ks = cfg.keyspace;
    if (scratch && !SCRATCH_KEYSPACE.test(ks)) throw new Error(`a scratch keyspace must match ${SCRATCH_KEYSPACE.source}: ${ks}`);
    const session = await connectSession(scyllaStoreConfig(cfg));
    try {
      if (scratch) await dropKeyspace(session, ks);
      await migrate(session, ALL_TABLES);
    } catch (e) {
      await session.close().catch(() => undefined);
      throw e;
    }
    const messages = new ScyllaMessageStore(session, { clock, ...(tuning.commitAuxTtlMs === undefined ? {} : { commitAuxTtlMs: tuning.commitAuxTtlMs }) });
    async function* rows(cql: string): AsyncGenerator<Record<string, unknown>> {
      let pageState: string | undefined;
      do {
        const rs = await session.client.execute(cql, [], { fetchSize: 2000, pageState, readTimeout: 60_000 });
        for (const r of rs.rows) yield r as unknown as Record<string, unknown>;
        pageState = rs.pageState ?? undefined;
      } while (pageState);
    }
    return {
      kind: 'scylla',
      messages,
      mailboxStore: (shardEpoch, gc) =>
        new ScyllaMailboxStore({
          session,
          shardEpoch,
          gc,
          clock,
          ...(tuning.releasedProofTtlMs === undefined ? {} : { releasedProofTtlSeconds: Number(tuning.releasedProofTtlMs / 1000n) }),
          ...(tuning.applyConcurrency === undefined ? {} : { maxStatementsInFlight: tuning.applyConcurrency }),
        }),
      inspect: {
        kind: 'scylla',
        keyspace: ks,
        tables: ALL_TABLES.map((t) => t.name),
        rows,
        count: async (table) => {
          const rs = await session.client.execute(`SELECT COUNT(*) AS n FROM ${ks}.${table}`, [], { readTimeout: 60_000 });
          return Number(String(rs.first()?.['n'] ?? 0));
        },
      },
      where: `${cfg.hosts.join(',')} keyspace ${ks}`,
      close: async () => {
        if (scratch && !keep) await dropKeyspace(session, ks).catch(() => undefined);
        await session.close().catch(() => undefined);
      },
    };
  },
};
