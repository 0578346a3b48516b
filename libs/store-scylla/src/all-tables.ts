import { MAILBOX_TABLES } from './mailbox/schema';
import { MESSAGE_TABLES } from './message/message-tables';
import type { TableSpec } from './schema/table-spec';

/** Every table of the backend, message store first: what `migrate` and readiness get in production. */
export const ALL_TABLES: readonly TableSpec[] = Object.freeze([...MESSAGE_TABLES, ...MAILBOX_TABLES]);
