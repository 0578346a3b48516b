import type { TableSpec } from '../schema/table-spec';
import { COMMIT_TABLE } from './tables/commit-table';
import { HISTORY_INDEX_TABLE } from './tables/history-index-table';
import { RECORD_TABLE } from './tables/record-table';
import { RECOVERY_PROGRESS_TABLE } from './tables/recovery-progress-table';
import { RECOVERY_TABLE } from './tables/recovery-table';
import { SEQUENCE_TABLE } from './tables/sequence-table';

/** Every table of the message store (seed table "MessageStore schema 与操作"), for `migrate`/readiness. */
export const MESSAGE_TABLES: readonly TableSpec[] = Object.freeze([
  COMMIT_TABLE,
  SEQUENCE_TABLE,
  RECORD_TABLE,
  HISTORY_INDEX_TABLE,
  RECOVERY_TABLE,
  RECOVERY_PROGRESS_TABLE,
]);
