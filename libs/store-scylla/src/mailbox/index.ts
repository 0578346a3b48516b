export { ScyllaMailboxStore } from './scylla-mailbox-store';
export type { ScyllaMailboxStoreOptions } from './scylla-mailbox-store';
export { MAILBOX_TABLES } from './schema';
export { DEFAULT_MAX_IN_FLIGHT } from '../session/in-flight-limit';
