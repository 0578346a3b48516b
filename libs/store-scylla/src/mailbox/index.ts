export { ScyllaMailboxStore } from './scylla-mailbox-store';
export type { ScyllaMailboxStoreOptions } from './scylla-mailbox-store';
export { MAILBOX_TABLES } from './schema';
export { StatementCounter } from '../session/statement-counter';
export type { StatementCount } from '../session/statement-counter';
export { DEFAULT_MAX_IN_FLIGHT } from '../session/in-flight-limit';
export type { ScyllaMailboxFaults } from './context/scylla-mailbox-faults';
