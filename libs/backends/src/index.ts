export * from './registry';
export * from './backend-env';
export * from './open-backend';
export * from './service-env';
export { memoryCoordination, memoryMailboxBackend, memoryMessageBackend } from '@qim/store-memory';
export { SCYLLA_TABLE_NAMES, migrateScylla, verifyScylla } from '@qim/store-scylla';
export type {
  ScyllaAdminProgress,
  ScyllaAdminStep,
  ScyllaBackendConfig,
  ScyllaMigrateOutcome,
  ScyllaMigrationEvent,
  ScyllaMigrationReport,
  ScyllaReadinessCheck,
  ScyllaReadinessReport,
} from '@qim/store-scylla';
export type { Coordination, MailboxBackend, MailboxBinding, MessageBackend, StartupLog } from '@qim/store-core';
