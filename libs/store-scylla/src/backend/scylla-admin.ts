import { ALL_TABLES } from '../all-tables';
import type { MigrationEvent, MigrationReport } from '../migrate/migrate';
import { migrate } from '../migrate/migrate';
import type { ReadinessReport } from '../readiness/readiness';
import { checkReadiness } from '../readiness/readiness';
import type { ScyllaSession } from '../session/scylla-session';
import { connectSession } from '../session/scylla-session';
import { scyllaStoreConfig } from './scylla-backend-module';
import type { ScyllaBackendConfig } from './scylla-env';

export type { MigrationEvent as ScyllaMigrationEvent, MigrationReport as ScyllaMigrationReport } from '../migrate/migrate';
export type { ReadinessCheckOutcome as ScyllaReadinessCheck, ReadinessReport as ScyllaReadinessReport } from '../readiness/readiness';

/** The tables the operator commands create or verify: every table of both stores, in migrate order. */
export const SCYLLA_TABLE_NAMES: readonly string[] = Object.freeze(ALL_TABLES.map((t) => t.name));

/**
 * A step of an operator command, reported when it starts (`connect`, `migrate`, `readiness`) or
 * completes (the migration's own events: keyspace, each table, each added column).
 */
export type ScyllaAdminStep =
  | { readonly kind: 'connect'; readonly hosts: readonly string[]; readonly dataCenter: string }
  | { readonly kind: 'migrate'; readonly keyspace: string; readonly replicationFactor: number; readonly tables: readonly string[] }
  | MigrationEvent
  | { readonly kind: 'readiness'; readonly keyspace: string };

/** Receives each `ScyllaAdminStep`; must not throw. */
export type ScyllaAdminProgress = (step: ScyllaAdminStep) => void;

/** What `migrateScylla` did, and the readiness check that followed it. */
export interface ScyllaMigrateOutcome {
  readonly migration: MigrationReport;
  readonly readiness: ReadinessReport;
}

async function withSession<T>(cfg: ScyllaBackendConfig, onStep: ScyllaAdminProgress, use: (s: ScyllaSession) => Promise<T>): Promise<T> {
  const config = scyllaStoreConfig(cfg);
  onStep({ kind: 'connect', hosts: cfg.hosts, dataCenter: cfg.localDataCenter });
  const session = await connectSession(config);
  try {
    return await use(session);
  } finally {
    await session.close().catch(() => undefined);
  }
}

/**
 * Operator `migrate`: connect → the explicit `migrate` of every table (create or verify the
 * keyspace, never alter it; create tables; add known nullable columns) → readiness. A refusal
 * (wrong RF or DC, tablets, a column of another type, an unknown DC, unreachable hosts) throws
 * before any DDL; a readiness problem after a successful migration is returned, not thrown.
 */
export async function migrateScylla(cfg: ScyllaBackendConfig, onStep: ScyllaAdminProgress): Promise<ScyllaMigrateOutcome> {
  return withSession(cfg, onStep, async (session) => {
    onStep({ kind: 'migrate', keyspace: cfg.keyspace, replicationFactor: cfg.replicationFactor, tables: SCYLLA_TABLE_NAMES });
    const migration = await migrate(session, ALL_TABLES, onStep);
    onStep({ kind: 'readiness', keyspace: cfg.keyspace });
    return { migration, readiness: await checkReadiness(session, ALL_TABLES) };
  });
}

/**
 * Operator `verify`: connect → readiness of every table. Reads the system schema only; never
 * creates or alters anything. Connection failures (unreachable hosts, an unknown DC) throw.
 */
export async function verifyScylla(cfg: ScyllaBackendConfig, onStep: ScyllaAdminProgress): Promise<ReadinessReport> {
  return withSession(cfg, onStep, async (session) => {
    onStep({ kind: 'readiness', keyspace: cfg.keyspace });
    return checkReadiness(session, ALL_TABLES);
  });
}
