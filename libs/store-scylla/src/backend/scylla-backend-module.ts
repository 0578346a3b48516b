import type { BackendModule, BackendReadiness, MailboxBackend, MailboxBinding, MessageBackend, StartupLog } from '@qim/store-core';
import { StoreCache, UnavailableError } from '@qim/store-core';
import type { ScyllaConfig } from '../config/scylla-config';
import { PRODUCTION_MIN_RF, developmentScyllaConfig, productionScyllaConfig } from '../config/scylla-config';
import { MAILBOX_TABLES } from '../mailbox/schema';
import { ScyllaMailboxStore } from '../mailbox/scylla-mailbox-store';
import { MESSAGE_TABLES } from '../message/message-tables';
import { ScyllaMessageStore } from '../message/scylla-message-store';
import { migrate } from '../migrate/migrate';
import { checkReadiness } from '../readiness/readiness';
import type { TableSpec } from '../schema/table-spec';
import type { ScyllaSession } from '../session/scylla-session';
import { connectSession } from '../session/scylla-session';
import type { ScyllaBackendConfig } from './scylla-env';
import { resolveScylla, scyllaEnvShape } from './scylla-env';

type ReadinessCheck = BackendReadiness;

/**
 * The store's `ScyllaConfig` for the parsed variables: production rules (RF ≥ 3) unless the RF is
 * below 3, which the config schema allowed only in development/test.
 */
export function scyllaStoreConfig(cfg: ScyllaBackendConfig): ScyllaConfig {
  const input = { contactPoints: cfg.hosts, keyspace: cfg.keyspace, localDataCenter: cfg.localDataCenter, replicationFactor: cfg.replicationFactor };
  return cfg.replicationFactor >= PRODUCTION_MIN_RF ? productionScyllaConfig(input) : developmentScyllaConfig(input);
}

/**
 * Scylla/Cassandra start-up, fail closed: connect (opens the pool only) → explicit `migrate` of this
 * service's tables (create or verify; never ALTER KEYSPACE; tablets off on ScyllaDB) → readiness
 * (system schema, DC/RF re-checked). Any failure closes the session and throws; no fallback.
 * The config schema already refused RF < 3 outside development/test; the backend re-checks it.
 */
async function openSession(cfg: ScyllaBackendConfig, tables: readonly TableSpec[], step: StartupLog): Promise<ScyllaSession> {
  const session = await connectSession(scyllaStoreConfig(cfg));
  try {
    step('scylla connect', { hosts: cfg.hosts, dc: cfg.localDataCenter });
    const report = await migrate(session, tables);
    step('scylla migrate', { ...report });
    const ready = await checkReadiness(session, tables);
    if (!ready.ready) throw new UnavailableError(`scylla not ready: ${ready.problems.join('; ')}`);
    step('scylla readiness', { dialect: ready.dialect });
    return session;
  } catch (err) {
    await session.close().catch(() => undefined);
    throw err;
  }
}

function readinessOf(session: ScyllaSession, tables: readonly TableSpec[]): ReadinessCheck {
  return {
    name: 'store',
    check: async () => {
      const r = await checkReadiness(session, tables);
      return { ok: r.ready, detail: { backend: 'scylla', dialect: r.dialect, problems: r.problems } };
    },
  };
}

export async function scyllaMessageBackend(cfg: ScyllaBackendConfig, step: StartupLog): Promise<MessageBackend> {
  const session = await openSession(cfg, MESSAGE_TABLES, step);
  const store = new ScyllaMessageStore(session);
  return {
    kind: 'scylla',
    store,
    readiness: readinessOf(session, MESSAGE_TABLES),
    close: async () => {
      await store.close();
      await session.close();
    },
  };
}

export async function scyllaMailboxBackend(cfg: ScyllaBackendConfig, binding: MailboxBinding, step: StartupLog): Promise<MailboxBackend> {
  const session = await openSession(cfg, MAILBOX_TABLES, step);
  const cache = new StoreCache(
    async (shard) =>
      new ScyllaMailboxStore({
        session,
        shardEpoch: { shard, epoch: binding.epoch },
        gc: binding.gc,
        maxStatementsInFlight: binding.applyConcurrency,
        clockSkewAllowanceMs: binding.clockSkewAllowanceMs,
      }),
  );
  return {
    kind: 'scylla',
    storeFor: (s) => cache.get(s),
    readiness: readinessOf(session, MAILBOX_TABLES),
    close: async () => {
      await cache.closeAll();
      await session.close();
    },
  };
}

/**
 * The Scylla/Cassandra backend: both stores; no coordination of its own (the writer keeps its
 * membership, leases and recovery claims in Redis, `capabilities.coordination` false).
 */
export const scyllaBackendModule: BackendModule<ScyllaBackendConfig> = {
  kind: 'scylla',
  capabilities: { durable: true, coordination: false },
  envShape: scyllaEnvShape,
  resolve: (raw, ctx, requiredBy) => resolveScylla(raw, ctx, requiredBy),
  openMessageBackend: (cfg, { step }) => scyllaMessageBackend(cfg, step),
  openMailboxBackend: (cfg, binding, { step }) => scyllaMailboxBackend(cfg, binding, step),
};
