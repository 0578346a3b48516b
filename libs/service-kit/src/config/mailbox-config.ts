import { z } from 'zod';
import { intField } from './env-fields';
import type { CommonConfig } from './service-env';
import { commonConfigOf, commonEnvShape, resolveBackend } from './service-env';

const DAY_MS = 86_400_000;

/** Mailbox-only variables. */
export const mailboxEnvShape = {
  ...commonEnvShape,
  QIM_MAILBOX_CHUNK_SIZE: intField(1, 10_000, 256),
  QIM_MAILBOX_RETENTION_DAYS: intField(1, 3_650, 30),
  QIM_DISPATCH_GC_DELAY_MS: intField(1_000, 30 * DAY_MS, 3_600_000),
  QIM_GC_INTERVAL_MS: intField(100, 3_600_000, 30_000),
  QIM_GC_CUTOFF_MS: intField(0, 30 * DAY_MS, 60_000),
  QIM_GC_BATCH: intField(1, 10_000, 100),
  QIM_FLOOR_INTERVAL_MS: intField(100, 3_600_000, 10_000),
  QIM_SYNC_MAX_LIMIT: intField(1, 10_000, 500),
} as const;

export interface MailboxConfig extends CommonConfig {
  readonly service: 'mailbox';
  readonly shards: number;
  readonly epoch: number;
  readonly chunkSize: number;
  readonly entryRetentionMs: bigint;
  readonly dispatchGcDelayMs: bigint;
  readonly gc: { readonly intervalMs: number; readonly cutoffMs: number; readonly batch: number };
  readonly floorIntervalMs: number;
  readonly syncMaxLimit: number;
  readonly routerGroup: string;
  readonly shardGroup: string;
}

/**
 * The mailbox's environment schema. `QIM_MAILBOX_SHARDS` (= partitions of the dispatch topic) and
 * `QIM_MAILBOX_EPOCH` are required: a wrong guess would move users between shards. Redis is used
 * only in redis mode; in scylla mode the mailbox opens no Redis connection.
 */
export const mailboxEnvSchema = z.object(mailboxEnvShape).transform((raw, ctx): MailboxConfig => {
  const backend = resolveBackend(raw, ctx);
  for (const k of ['QIM_MAILBOX_SHARDS', 'QIM_MAILBOX_EPOCH'] as const) {
    if (raw[k] === undefined) ctx.addIssue({ code: 'custom', path: [k], message: 'required by the mailbox service' });
  }
  if (backend === null || raw.QIM_MAILBOX_SHARDS === undefined || raw.QIM_MAILBOX_EPOCH === undefined) return z.NEVER;
  return {
    ...commonConfigOf(raw, backend, { port: 8081, clientId: 'qim-mailbox' }),
    service: 'mailbox',
    shards: raw.QIM_MAILBOX_SHARDS,
    epoch: raw.QIM_MAILBOX_EPOCH,
    chunkSize: raw.QIM_MAILBOX_CHUNK_SIZE,
    entryRetentionMs: BigInt(raw.QIM_MAILBOX_RETENTION_DAYS) * BigInt(DAY_MS),
    dispatchGcDelayMs: BigInt(raw.QIM_DISPATCH_GC_DELAY_MS),
    gc: { intervalMs: raw.QIM_GC_INTERVAL_MS, cutoffMs: raw.QIM_GC_CUTOFF_MS, batch: raw.QIM_GC_BATCH },
    floorIntervalMs: raw.QIM_FLOOR_INTERVAL_MS,
    syncMaxLimit: raw.QIM_SYNC_MAX_LIMIT,
    routerGroup: `${raw.QIM_KAFKA_CLIENT_ID ?? 'qim-mailbox'}-router`,
    shardGroup: `${raw.QIM_KAFKA_CLIENT_ID ?? 'qim-mailbox'}-shards-e${raw.QIM_MAILBOX_EPOCH}`,
  };
});
