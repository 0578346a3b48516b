export { KEYSPACE_RE, PRODUCTION_MIN_RF, productionScyllaConfig, developmentScyllaConfig } from './config/scylla-config';
export type { ScyllaConfig, ScyllaConfigInput, ScyllaConfigMode } from './config/scylla-config';
export { connectSession } from './session/scylla-session';
export type { ClientTuning, ScyllaSession } from './session/scylla-session';
export type { TableSpec } from './schema/table-spec';
export type { CqlDialect } from './schema/dialect';
export { SchemaRefusedError } from './schema/schema-refused-error';
export { ALL_TABLES } from './all-tables';
export { migrate } from './migrate/migrate';
export { LEGACY_LAYOUT_TABLES } from './migrate/legacy-layout';
export type { MigrationEvent, MigrationProgress, MigrationReport } from './migrate/migrate';
export { checkReadiness } from './readiness/readiness';
export type { ReadinessCheckOutcome, ReadinessReport } from './readiness/readiness';
export { MESSAGE_TABLES } from './message/message-tables';
export { ScyllaMessageStore } from './message/scylla-message-store';
export type { ScyllaMessageStoreOptions } from './message/scylla-message-store';
export * from './mailbox/index';
export { entryTtlSeconds } from './mailbox/retention/entry-ttl';
export { scyllaBackendModule, scyllaMailboxBackend, scyllaMessageBackend, scyllaStoreConfig } from './backend/scylla-backend-module';
export { resolveScylla, scyllaEnvShape } from './backend/scylla-env';
export type { ScyllaBackendConfig } from './backend/scylla-env';
export { SCYLLA_TABLE_NAMES, migrateScylla, verifyScylla } from './backend/scylla-admin';
export type {
  ScyllaAdminProgress,
  ScyllaAdminStep,
  ScyllaMigrateOutcome,
  ScyllaMigrationEvent,
  ScyllaMigrationReport,
  ScyllaReadinessCheck,
  ScyllaReadinessReport,
} from './backend/scylla-admin';
