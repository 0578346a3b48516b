export { ScyllaMailboxStore } from './scylla-mailbox-store';
export type { ScyllaMailboxStoreOptions } from './scylla-mailbox-store';
export { MAILBOX_TABLES } from './schema';
export { StatementCounter } from './cql/statement-counter';
export type { StatementCount } from './cql/statement-counter';
export { DEFAULT_MAX_IN_FLIGHT } from './cql/in-flight-limit';
export type { ScyllaMailboxFaults } from './page/page-faults';
