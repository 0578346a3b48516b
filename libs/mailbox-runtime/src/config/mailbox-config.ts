import type { BackendEnv } from '@qim/store-core';
import { checkMailboxRetention, intField, maxRetentionDays } from '@qim/store-core';
import { z } from 'zod';
import { BACKEND_ENV } from '@qim/backends';
import type { CommonConfig } from '@qim/service-kit';
import { commonConfigOf, commonEnvShape, resolveBackend, serviceTokensOf } from '@qim/service-kit';

const DAY_MS = 86_400_000;

/** Kafka records per shard page unless `QIM_MAILBOX_PAGE_RECORDS` says otherwise (the fan-out benchmarks use it too). */
export const DEFAULT_MAILBOX_PAGE_RECORDS = 500;

/** The mailbox's variables besides the backends' (`BackendEnv.shape`). */
export const mailboxEnvShape = {
  ...commonEnvShape,
  QIM_MAILBOX_RETENTION_DAYS: intField(1, 3_650, 30).describe(
    'mailbox entry retention in days after the end of its creation day; at most 31 − one per started day ' +
      'of `QIM_CLOCK_SKEW_MS` (30 with the default), else refused at start-up',
  ),
  QIM_CLOCK_SKEW_MS: intField(0, 60_000, 1_000).describe(
    'bound of the clock skew between services and database servers (ms, 0…60 000): a reader treats an ' +
      'entry as possibly gone 1 s + twice this before its expiry (`CURSOR_EXPIRED`, never a silent skip); ' +
      'writers take a fast path into a day only while it lives past now + this + 1 h',
  ),
  QIM_DISPATCH_DEDUPE_MS: intField(60_000, 365 * DAY_MS, 8 * DAY_MS).describe(
    "how long a dispatch id is remembered to recognise a duplicate (ms, from its `created_at`); must exceed the topics' retention",
  ),
  QIM_MAILBOX_APPLY_CONCURRENCY: intField(1, 1_024, 64).describe('store statements one shard keeps in flight while applying a page (backpressure)'),
  QIM_MAILBOX_PAGE_RECORDS: intField(1, 10_000, DEFAULT_MAILBOX_PAGE_RECORDS).describe(
    'largest page of records a shard worker applies (or the router routes) at once',
  ),
  QIM_SYNC_MAX_LIMIT: intField(1, 10_000, 500).describe('largest `limit` of a sync page'),
  QIM_SYNC_MAX_WAIT_MS: intField(0, 300_000, 30_000).describe('largest `wait_ms` of a long-polling sync (ms; above → 400); 0 turns long polls off'),
  QIM_SYNC_REPEAT_HOLD_MS: intField(0, 60_000, 250).describe(
    'a sync that finds nothing after the cursor an answer gave the user within this long is held until ' +
      'then (woken by an entry); at most `QIM_SYNC_MAX_WAIT_MS`; 0 = off',
  ),
  QIM_SYNC_STREAM_MAX_MS: intField(1_000, 3_600_000, 300_000).describe(
    'longest life of a streamed sync (`GET …/stream`, ms): it then ends with an `end` event and the device reconnects from its cursor',
  ),
  QIM_KAFKA_COMMIT_INTERVAL_MS: intField(0, 10_000, 100).describe(
    'least time (ms) between two OffsetCommit requests of one consumer (router, shard worker); a crash ' +
      're-reads up to this much, recognised as duplicates; 0 = as soon as the previous ended',
  ),
  QIM_KAFKA_FETCH_MIN_BYTES: intField(1, 10 * 1024 * 1024, 1).describe(
    "mailbox consumers' fetch: the broker answers once this many bytes are there or after `QIM_KAFKA_FETCH_MAX_WAIT_MS`; 1 answers at the first record",
  ),
  QIM_KAFKA_FETCH_MAX_WAIT_MS: intField(1, 1_000, 100).describe('longest a fetch waits at the broker for `QIM_KAFKA_FETCH_MIN_BYTES` (ms)'),
  QIM_KAFKA_FETCH_PACE_MS: intField(0, 1_000, 10).describe(
    'after a fetch that emptied its partitions, the next starts no sooner than this after the previous ' +
      'hand-over (ms); idle or lagging consumers are never paced; 0 = off',
  ),
} as const;

export interface MailboxConfig extends CommonConfig {
  readonly service: 'mailbox';
  readonly shards: number;
  readonly epoch: number;
  readonly entryRetentionMs: bigint;
  /**
   * How far the clocks of the services and the database servers may disagree (ms,
   * `QIM_CLOCK_SKEW_MS`): readers treat an entry as possibly gone twice this much plus one TTL second
   * before its expiry, and it bounds the longest retention the active ledger can hold.
   */
  readonly clockSkewAllowanceMs: bigint;
  /** How long a dispatch id is remembered for duplicate detection, from its record's createdAt (ms). */
  readonly dispatchDedupeMs: bigint;
  /** Store statements a shard worker keeps in flight while applying a page. */
  readonly applyConcurrency: number;
  /** Largest page of dispatch (and messages) records applied at once. */
  readonly pageRecords: number;
  readonly syncMaxLimit: number;
  /** Largest `wait_ms` of a long-polling sync (ms); 0 disables waiting. */
  readonly syncMaxWaitMs: number;
  /** Longest life of a streamed sync (ms); it then ends and the device reconnects from its cursor. */
  readonly syncStreamMaxMs: number;
  /**
   * The repeat hold (ms): a sync repeating the cursor an answer gave the user sooner than
   * this after it, with nothing new, waits until this long after that answer (woken by an entry);
   * 0 turns it off. Never longer than `syncMaxWaitMs`.
   */
  readonly syncRepeatHoldMs: number;
  /**
   * The least time between two OffsetCommit requests of one consumer (ms): a busy consumer commits a
   * few times a second instead of once per page; after a crash up to this much is read again (and
   * recognised as duplicates). 0: each request as soon as the previous one ended.
   */
  readonly kafkaCommitIntervalMs: number;
  /**
   * The consumers' fetch (router, shard workers): answered by the broker once this many bytes are
   * there or after `kafkaFetchMaxWaitMs`. The default (1 byte) answers at the first record: lowest
   * latency, one fetch round trip per few records. A larger value trades up to the wait per hop for
   * fewer, larger fetches (throughput on a CPU-bound machine).
   */
  readonly kafkaFetchMinBytes: number;
  readonly kafkaFetchMaxWaitMs: number;
  /**
   * Fetch pacing of the consumers while caught up (ms, 0 = off; `PartitionConsumerOptions.fetchPaceMs`):
   * after a fetch that emptied its partitions, the next one starts no sooner than this after the
   * previous hand-over, so a steady stream is fetched in batches. An idle or lagging consumer is never
   * paced, so it costs nothing at idle and never slows catching up; a record arriving during the pause
   * waits for it (at most this long per hop).
   */
  readonly kafkaFetchPaceMs: number;
  readonly routerGroup: string;
  readonly shardGroup: string;
}

/**
 * The mailbox's environment schema. `QIM_MAILBOX_SHARDS` (= partitions of the dispatch topic) and
 * `QIM_MAILBOX_EPOCH` are required: a wrong guess would move users between shards. Redis is used
 * only in redis mode; in scylla mode the mailbox opens no Redis connection. Over the backends' variables.
 */
export function mailboxEnvSchemaOver(backends: BackendEnv) {
  return z.object({ ...mailboxEnvShape, ...backends.shape }).transform((raw, ctx): MailboxConfig => {
    const backend = resolveBackend(backends, raw, ctx);
    for (const k of ['QIM_MAILBOX_SHARDS', 'QIM_MAILBOX_EPOCH'] as const) {
      if (raw[k] === undefined) ctx.addIssue({ code: 'custom', path: [k], message: 'required by the mailbox service' });
    }
    const clockSkewAllowanceMs = BigInt(raw.QIM_CLOCK_SKEW_MS);
    const entryRetentionMs = BigInt(raw.QIM_MAILBOX_RETENTION_DAYS) * BigInt(DAY_MS);
    try {
      checkMailboxRetention(entryRetentionMs, clockSkewAllowanceMs);
    } catch {
      const max = maxRetentionDays(clockSkewAllowanceMs);
      ctx.addIssue({
        code: 'custom',
        path: ['QIM_MAILBOX_RETENTION_DAYS'],
        message: `must be at most ${max} days: the 32-item active ledger cannot hold more with QIM_CLOCK_SKEW_MS=${clockSkewAllowanceMs}`,
      });
      return z.NEVER;
    }
    if (backend === null || raw.QIM_MAILBOX_SHARDS === undefined || raw.QIM_MAILBOX_EPOCH === undefined) return z.NEVER;
    return {
      ...commonConfigOf(raw, backend, serviceTokensOf(raw), { port: 8081, clientId: 'qim-mailbox' }),
      service: 'mailbox',
      shards: raw.QIM_MAILBOX_SHARDS,
      epoch: raw.QIM_MAILBOX_EPOCH,
      entryRetentionMs,
      clockSkewAllowanceMs,
      dispatchDedupeMs: BigInt(raw.QIM_DISPATCH_DEDUPE_MS),
      applyConcurrency: raw.QIM_MAILBOX_APPLY_CONCURRENCY,
      pageRecords: raw.QIM_MAILBOX_PAGE_RECORDS,
      syncMaxLimit: raw.QIM_SYNC_MAX_LIMIT,
      syncMaxWaitMs: raw.QIM_SYNC_MAX_WAIT_MS,
      syncStreamMaxMs: raw.QIM_SYNC_STREAM_MAX_MS,
      syncRepeatHoldMs: Math.min(raw.QIM_SYNC_REPEAT_HOLD_MS, raw.QIM_SYNC_MAX_WAIT_MS),
      kafkaCommitIntervalMs: raw.QIM_KAFKA_COMMIT_INTERVAL_MS,
      kafkaFetchMinBytes: raw.QIM_KAFKA_FETCH_MIN_BYTES,
      kafkaFetchMaxWaitMs: raw.QIM_KAFKA_FETCH_MAX_WAIT_MS,
      kafkaFetchPaceMs: raw.QIM_KAFKA_FETCH_PACE_MS,
      routerGroup: `${raw.QIM_KAFKA_CLIENT_ID ?? 'qim-mailbox'}-router`,
      shardGroup: `${raw.QIM_KAFKA_CLIENT_ID ?? 'qim-mailbox'}-shards-e${raw.QIM_MAILBOX_EPOCH}`,
    };
  });
}

/** The mailbox's environment schema, with every registered backend's variables (parse with `parseServiceEnv`). */
export const mailboxEnvSchema = mailboxEnvSchemaOver(BACKEND_ENV);
