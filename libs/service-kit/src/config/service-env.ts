import type { BackendEnv, BackendSelection, QimEnv } from '@qim/store-core';
import { choice, hostList, intField, isDevelopmentEnv, optionalIntField, optionalString, qimEnvShape, topicName } from '@qim/store-core';
import type { z } from 'zod';
import { READ_BUDGET_MIN_SHARE_BYTES } from '../limits/read-budget';
import { serviceTokenShape } from './service-tokens';

const minShareText = `${READ_BUDGET_MIN_SHARE_BYTES / 1024} KiB`;

export { QIM_ENVS, isDevelopmentEnv } from '@qim/store-core';
export type { QimEnv } from '@qim/store-core';

/**
 * The variables both services read (01-system.md, "Configuration"). Absent `QIM_ENV` means
 * production: the strictest rules apply unless an operator says otherwise.
 */
export const commonEnvShape = {
  ...qimEnvShape,
  ...serviceTokenShape,
  QIM_HTTP_HOST: optionalString().describe('listen address (default `0.0.0.0`)'),
  QIM_HTTP_PORT: optionalIntField(0, 65535).describe('listen port (default 8080 writer, 8081 mailbox)'),
  QIM_LOG_LEVEL: choice(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info').describe('pino log level'),
  QIM_LOG_REQUESTS: choice(['true', 'false'], 'false').describe(
    "`true` adds Fastify's two log lines per HTTP request; failures are logged with their request id either way",
  ),
  QIM_BODY_LIMIT_BYTES: intField(1024, 16 * 1024 * 1024, 256 * 1024).describe('request body limit in bytes (1 KiB…16 MiB; 413 beyond)'),
  QIM_KAFKA_BROKERS: hostList().describe('Kafka bootstrap servers, `host:port,…`'),
  QIM_KAFKA_CLIENT_ID: optionalString().describe('Kafka client id (default `qim-writer` / `qim-mailbox`); the mailbox also names its consumer groups with it'),
  QIM_TOPIC_MESSAGES: topicName('qim.messages').describe('the outbox topic'),
  QIM_TOPIC_DISPATCH: topicName('qim.mailbox.dispatch').describe('the dispatch topic (partitions = mailbox shards)'),
  QIM_MESSAGES_PARTITIONS: intField(1, 10_000, 12).describe('partitions of the messages topic (created, or verified at start-up)'),
  QIM_KAFKA_REPLICATION: intField(1, 15, 1).describe('replication factor of the topics the services create (`min.insync.replicas` 2 from 3 on)'),
  QIM_KAFKA_PRODUCE_PACE_MS: intField(0, 100, 5).describe(
    'writer outbox and router dispatch producer: least time (ms, 0…100) between the starts of two produce requests, ' +
      'so a busy stream shares requests; a record after a quiet spell goes at once; ' +
      "counts toward a send's deadline; 0 = off",
  ),
  QIM_MAILBOX_SHARDS: optionalIntField(1, 65_536).describe('mailbox (required): shard count = partitions of the dispatch topic'),
  QIM_MAILBOX_EPOCH: optionalIntField(0, 65_535).describe('mailbox (required): mailbox epoch (0…65 535); a change of the shard count is an epoch change'),
  QIM_SHUTDOWN_GRACE_MS: intField(100, 120_000, 10_000).describe('bound of each step of the shutdown sequence (ms)'),
  QIM_SHUTDOWN_DEADLINE_MS: intField(1_000, 600_000, 25_000).describe(
    "one global bound of the shutdown sequence (ms), below the orchestrator's kill timeout; writer: longer than `QIM_SEND_DEADLINE_MS`",
  ),
  QIM_HTTP_REQUEST_TIMEOUT_MS: intField(1_000, 600_000, 30_000).describe(
    'most time a client may take to send one whole request (Fastify `requestTimeout`, ms)',
  ),
  QIM_READ_BUDGET_BYTES: intField(1024 * 1024, 16 * 1024 * 1024 * 1024, 64 * 1024 * 1024).describe(
    'bytes of pages (mailbox sync, writer history) one process reads at once (1 MiB…16 GiB): ' +
      'each read holds its `max_bytes` (at most this) while the store reads; when that much is not free it reads a shorter page ' +
      `with the free part if that is at least ${minShareText} (ADR-0043); ` +
      'else it waits `QIM_READ_BUDGET_WAIT_MS`, then `503 UNAVAILABLE` with `Retry-After`',
  ),
  QIM_READ_BUDGET_WAIT_MS: intField(0, 10_000, 200).describe(
    `most time a page read waits for ${minShareText} (or its whole \`max_bytes\`, if less) free in \`QIM_READ_BUDGET_BYTES\` before \`503\` ` +
      'with `Retry-After` (ms; 0 = refuse at once)',
  ),
} as const;

type CommonRaw = z.output<z.ZodObject<typeof commonEnvShape>>;

type Ctx = z.core.$RefinementCtx<unknown>;

/**
 * The chosen backend, resolved by `backends` (the registry of `@qim/backends`) from the service's
 * variables: memory only in development/test; each backend's own variables required when chosen.
 * Returns null after reporting issues on `ctx`.
 */
export function resolveBackend(backends: BackendEnv, raw: Readonly<Record<string, unknown>> & { readonly QIM_ENV: QimEnv }, ctx: Ctx): BackendSelection | null {
  return backends.resolve(raw, backendEnvContext(raw.QIM_ENV, ctx));
}

/** The backend modules' view of a zod refinement: `QIM_ENV` and a way to refuse a variable. */
export function backendEnvContext(env: QimEnv, ctx: Ctx) {
  return { env, development: isDevelopmentEnv(env), issue: (variable: string, message: string) => ctx.addIssue({ code: 'custom', path: [variable], message }) };
}

/** Settings every service has once its environment is valid. */
export interface CommonConfig {
  readonly env: QimEnv;
  /** The chosen backend's settings (its module in `@qim/backends` knows their shape). */
  readonly backend: BackendSelection;
  /** Every bearer token the service accepts (at least one; several during a rotation). */
  readonly serviceTokens: readonly string[];
  readonly http: {
    readonly host: string;
    readonly port: number;
    readonly bodyLimit: number;
    /** Most time a client may take to send one whole request (Fastify `requestTimeout`, ms). */
    readonly requestTimeoutMs: number;
  };
  readonly logLevel: string;
  /**
   * Log two lines per HTTP request (Fastify's request logging). Off by default: at device polling
   * rates it costs more CPU than serving the request (profiled); failures are logged regardless.
   */
  readonly logRequests: boolean;
  readonly kafka: {
    readonly brokers: readonly string[];
    readonly clientId: string;
    readonly messagesTopic: string;
    readonly dispatchTopic: string;
    readonly messagesPartitions: number;
    readonly replication: number;
    /**
     * Produce pacing of the writer's outbox and the router's dispatch producer (ms, 0 = off;
     * `GroupCommitOptions.paceMs`): a produce request starts no sooner than this after the previous
     * one, so a steady stream goes in fewer, larger requests; after a quiet spell a record goes at once.
     */
    readonly producePaceMs: number;
  };
  /** Bound of each step of the shutdown sequence (ms), within `shutdownDeadlineMs`. */
  readonly shutdownGraceMs: number;
  /**
   * The one global bound of the shutdown sequence (ms), from the signal to the exit; below the
   * orchestrator's kill timeout (compose `stop_grace_period`).
   */
  readonly shutdownDeadlineMs: number;
  /** The per-process bound of page bytes read at once (`ReadBudget`): total bytes and the wait for a share (ms). */
  readonly readBudget: { readonly bytes: number; readonly waitMs: number };
}

export function commonConfigOf(
  raw: CommonRaw,
  backend: BackendSelection,
  serviceTokens: readonly string[],
  defaults: { port: number; clientId: string },
): CommonConfig {
  return {
    env: raw.QIM_ENV,
    backend,
    serviceTokens,
    http: {
      host: raw.QIM_HTTP_HOST ?? '0.0.0.0',
      port: raw.QIM_HTTP_PORT ?? defaults.port,
      bodyLimit: raw.QIM_BODY_LIMIT_BYTES,
      requestTimeoutMs: raw.QIM_HTTP_REQUEST_TIMEOUT_MS,
    },
    logLevel: raw.QIM_LOG_LEVEL,
    logRequests: raw.QIM_LOG_REQUESTS === 'true',
    kafka: {
      brokers: raw.QIM_KAFKA_BROKERS,
      clientId: raw.QIM_KAFKA_CLIENT_ID ?? defaults.clientId,
      messagesTopic: raw.QIM_TOPIC_MESSAGES,
      dispatchTopic: raw.QIM_TOPIC_DISPATCH,
      messagesPartitions: raw.QIM_MESSAGES_PARTITIONS,
      replication: raw.QIM_KAFKA_REPLICATION,
      producePaceMs: raw.QIM_KAFKA_PRODUCE_PACE_MS,
    },
    shutdownGraceMs: raw.QIM_SHUTDOWN_GRACE_MS,
    shutdownDeadlineMs: raw.QIM_SHUTDOWN_DEADLINE_MS,
    readBudget: { bytes: raw.QIM_READ_BUDGET_BYTES, waitMs: raw.QIM_READ_BUDGET_WAIT_MS },
  };
}
