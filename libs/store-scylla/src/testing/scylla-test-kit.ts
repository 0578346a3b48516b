import type { BackendTestKit } from '@qim/store-core/testing';
import type { QueryOptions, types } from 'cassandra-driver';
import { ALL_TABLES } from '../all-tables';
import type { ScyllaBackendConfig } from '../backend/scylla-env';
import { scyllaStoreConfig } from '../backend/scylla-backend-module';
import { entryTtlSeconds } from '../mailbox/retention/entry-ttl';
import { ScyllaMailboxStore } from '../mailbox/scylla-mailbox-store';
import { ScyllaMessageStore } from '../message/scylla-message-store';
import { migrate } from '../migrate/migrate';
import type { CqlDialect } from '../schema/dialect';
import { DEFAULT_MAX_IN_FLIGHT } from '../session/in-flight-limit';
import { connectSession } from '../session/scylla-session';
import { StatementCounter } from '../session/statement-counter';
import type { ScyllaSession } from '../session/scylla-session';
import { RequestTally } from './request-tally';
import { scyllaTestConfigFromEnv } from './scylla-test-env';

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
  /** The server's CQL dialect (from `migrate`). */
  readonly dialect: CqlDialect;
  /** Any statement on the stores' session (a benchmark's raw baseline beside the store, same driver and pool). */
  execute(cql: string, params?: readonly unknown[], options?: QueryOptions): Promise<types.ResultSet>;
  /** What the driver really executed on the session so far (requests, LWTs: CQL with an `IF` condition, errors). */
  readonly requests: RequestTally;
  /** Statements of every mailbox store this kit made, by name (LWT or not), and their requests. */
  readonly mailboxStatements: StatementCounter;
  /** The TTL (s) the mailbox store writes an entry expiring at `expiresAt` with at `now` (a raw baseline writes the same). */
  entryTtlSeconds(expiresAt: bigint, now: bigint): number;
  /** Requests one mailbox store keeps in flight unless `tuning.applyConcurrency` says otherwise. */
  readonly defaultApplyConcurrency: number;
  /** The message store's sequence allocation: LWT rounds of the seq CAS, and seqs issued per won round. */
  messageStoreSeqs(): { readonly lwtRounds: number; readonly groups: { readonly seqs: number; readonly rounds: number; readonly inDoubt: number } };
}

/**
 * The Scylla backend's settings for the gate's cluster (`QIM_TEST_SCYLLA_ADDR`, `_KEYSPACE`, `_DC`,
 * `_RF`; any missing → `InvalidInputError`), the keyspace `<QIM_TEST_SCYLLA_KEYSPACE><keyspaceSuffix>`.
 */
export function scyllaTestBackendConfig(env: NodeJS.ProcessEnv = process.env, keyspaceSuffix = ''): ScyllaBackendConfig {
  const c = scyllaTestConfigFromEnv(env, keyspaceSuffix);
  return { kind: 'scylla', hosts: c.contactPoints, keyspace: c.keyspace, localDataCenter: c.localDataCenter, replicationFactor: c.replicationFactor };
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
    const requests = new RequestTally();
    const session = await connectSession(scyllaStoreConfig(cfg), { requestTracker: requests });
    let dialect: CqlDialect;
    try {
      if (scratch) await dropKeyspace(session, ks);
      dialect = (await migrate(session, ALL_TABLES)).dialect;
    } catch (e) {
      await session.close().catch(() => undefined);
      throw e;
    }
    const mailboxStatements = new StatementCounter();
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
          counter: mailboxStatements,
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
        dialect,
        execute: (cql, params = [], options = {}) => session.client.execute(cql, [...params], options),
        requests,
        mailboxStatements,
        entryTtlSeconds,
        defaultApplyConcurrency: DEFAULT_MAX_IN_FLIGHT,
        messageStoreSeqs: () => ({ lwtRounds: messages.seqLwtRounds, groups: messages.seqGroups }),
      },
      where: `${cfg.hosts.join(',')} keyspace ${ks}`,
      close: async () => {
        if (scratch && !keep) await dropKeyspace(session, ks).catch(() => undefined);
        await session.close().catch(() => undefined);
      },
    };
  },
};
