/**
 * The names of the services' own variables (the backends' come from their modules). The schemas live
 * in the runtimes (`@qim/writer-runtime`, `@qim/mailbox-runtime`); an env file may serve both
 * services, so a service refuses only a name that neither reads — which needs both lists below
 * a runtime. Each runtime's spec fails when its schema and its list disagree.
 */
export const WRITER_VARIABLES: readonly string[] = [
  'QIM_MAX_FANOUT',
  'QIM_SEND_DEADLINE_MS',
  'QIM_SEND_BATCH_MAX',
  'QIM_SEND_BATCH_BODY_LIMIT_BYTES',
  'QIM_RECOVERY_INTERVAL_MS',
  'QIM_RECOVERY_GRACE_MS',
  'QIM_RECOVERY_BATCH',
  'QIM_LEASE_TTL_MS',
  'QIM_LEASE_REACQUIRE_MS',
  'QIM_WRITER_ID_SLOTS',
  'QIM_HOUSEKEEPING_INTERVAL_MS',
  'QIM_HOUSEKEEPING_BATCH',
  'QIM_INSTANCE_NAME',
  'QIM_ADMISSION_MAX_LAG_MS',
  'QIM_ADMISSION_POLL_MS',
  'QIM_ADMISSION_WAIT_MS',
  'QIM_ADMISSION_MAILBOX_CLIENT_ID',
  'QIM_ADMISSION_STALL_MS',
  'QIM_ADMISSION_LIGHT_FANOUT',
  'QIM_ADMISSION_LIGHT_ENTRIES_PER_S',
];

/** The mailbox's own variables (see `WRITER_VARIABLES`). */
export const MAILBOX_VARIABLES: readonly string[] = [
  'QIM_MAILBOX_RETENTION_DAYS',
  'QIM_CLOCK_SKEW_MS',
  'QIM_DISPATCH_DEDUPE_MS',
  'QIM_MAILBOX_APPLY_CONCURRENCY',
  'QIM_MAILBOX_PAGE_RECORDS',
  'QIM_SYNC_MAX_LIMIT',
  'QIM_SYNC_MAX_WAIT_MS',
  'QIM_SYNC_REPEAT_HOLD_MS',
  'QIM_SYNC_STREAM_MAX_MS',
  'QIM_KAFKA_COMMIT_INTERVAL_MS',
  'QIM_KAFKA_FETCH_MIN_BYTES',
  'QIM_KAFKA_FETCH_MAX_WAIT_MS',
  'QIM_KAFKA_FETCH_PACE_MS',
];
