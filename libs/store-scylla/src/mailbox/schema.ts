import type { TableSpec } from '../schema/table-spec';
import { DISPATCH_INDEX_TABLE } from './tables/dispatch-index-table';
import { ENTRY_TABLE } from './tables/entry-table';
import { FRONTIER_TABLE } from './tables/frontier-table';
import { RETENTION_BUCKET_TABLE, RETENTION_META_TABLE, TRIM_TABLE } from './tables/retention-tables';

/** Every table of the mailbox store (shard-frontier layout, ADR-0022), for `migrate`/readiness. */
export const MAILBOX_TABLES: readonly TableSpec[] = Object.freeze([
  ENTRY_TABLE,
  RETENTION_META_TABLE,
  RETENTION_BUCKET_TABLE,
  TRIM_TABLE,
  FRONTIER_TABLE,
  DISPATCH_INDEX_TABLE,
]);
