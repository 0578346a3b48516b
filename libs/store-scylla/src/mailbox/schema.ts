import type { TableSpec } from '../schema/table-spec';
import { CHUNK_TABLE, OBSERVATION_TABLE, SOURCE_TABLE } from './tables/dispatch-fact-tables';
import { ENTRY_TABLE } from './tables/entry-table';
import { COMPLETED_TABLE, WATERMARK_TABLE } from './tables/lane-tables';
import { PROGRESS_TABLE } from './tables/progress-table';
import { RETENTION_BUCKET_TABLE, RETENTION_META_TABLE, TRIM_TABLE } from './tables/retention-tables';

/** Every table of the mailbox store (seed table "MailboxStore schema 与操作"), for `migrate`/readiness. */
export const MAILBOX_TABLES: readonly TableSpec[] = Object.freeze([
  ENTRY_TABLE,
  RETENTION_META_TABLE,
  RETENTION_BUCKET_TABLE,
  SOURCE_TABLE,
  OBSERVATION_TABLE,
  COMPLETED_TABLE,
  TRIM_TABLE,
  PROGRESS_TABLE,
  CHUNK_TABLE,
  WATERMARK_TABLE,
]);
