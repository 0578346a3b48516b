export { ScyllaMailboxStore } from './scylla-mailbox-store';
export type { ScyllaMailboxStoreOptions } from './scylla-mailbox-store';
export { MAILBOX_TABLES } from './schema';
export { StatementCounter } from './cql/statement-counter';
export type { StatementCount } from './cql/statement-counter';
export type { GcStep, GcStepHook, GcFactKind } from './gc/gc-steps';
