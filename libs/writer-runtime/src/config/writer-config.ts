import type { BackendEnv, BackendSelection } from '@qim/store-core';
import { intField, optionalString } from '@qim/store-core';
import { z } from 'zod';
import { BACKEND_ENV } from '@qim/backends';
import type { CommonConfig } from '@qim/service-kit';
import { backendEnvContext, commonConfigOf, commonEnvShape, resolveBackend, serviceTokensOf } from '@qim/service-kit';

/** The writer's variables besides the backends' (`BackendEnv.shape`). */
export const writerEnvShape = {
  ...commonEnvShape,
  QIM_MAX_FANOUT: intField(1, 1_000_000, 10_000).describe(
    'largest conversation (members) a send or a membership change accepts; a send is also refused (422 ' +
      "`FANOUT_LIMIT`, nothing written) when its outbox event exceeds the messages topic's " +
      '`max.message.bytes` (read at start-up; about 61,000 members at 1 MiB)',
  ),
  QIM_SEND_DEADLINE_MS: intField(100, 600_000, 10_000).describe(
    'most time a send may take before `503 UNAVAILABLE` (ms); the commit goes on in the background or in recovery; also the life of a recovery claim',
  ),
  QIM_SEND_BATCH_MAX: intField(1, 10_000, 100).describe(
    '`POST /v1/messages/batch`: most sends in one batch; a larger batch is refused whole (413 `BATCH_TOO_LARGE`, nothing sent)',
  ),
  QIM_SEND_BATCH_BODY_LIMIT_BYTES: intField(1024, 64 * 1024 * 1024, 4 * 1024 * 1024).describe(
    '`POST /v1/messages/batch`: request body limit in bytes (413 `PAYLOAD_TOO_LARGE` beyond, nothing sent); other routes keep `QIM_BODY_LIMIT_BYTES`',
  ),
  QIM_RECOVERY_INTERVAL_MS: intField(100, 600_000, 3_000).describe('recovery loop: time between two scans (ms)'),
  QIM_RECOVERY_GRACE_MS: intField(0, 3_600_000, 20_000).describe(
    'recovery loop: only commits older than this are resumed (ms); must be longer than `QIM_SEND_DEADLINE_MS`',
  ),
  QIM_RECOVERY_BATCH: intField(1, 10_000, 200).describe('recovery loop: commits examined per scan'),
  QIM_LEASE_TTL_MS: intField(1_000, 600_000, 15_000).describe('life of the writer-id lease in Redis (ms), renewed while the writer runs'),
  QIM_LEASE_REACQUIRE_MS: intField(0, 3_600_000, 30_000).describe(
    'how long a lost lease may stay lost (re-acquisition retried) before the writer exits 1 (ms)',
  ),
  QIM_WRITER_ID_SLOTS: intField(1, 65_536, 1_024).describe('writer ids a writer may claim (`[0, slots)`)'),
  QIM_HOUSEKEEPING_INTERVAL_MS: intField(0, 86_400_000, 10_000).describe('housekeeping (expired auxiliary facts and history) every this many ms; 0 = off'),
  QIM_HOUSEKEEPING_BATCH: intField(1, 100_000, 1_000).describe('housekeeping: facts examined per pass kind per round'),
  QIM_INSTANCE_NAME: optionalString().describe('writer instance name in logs (default `writer-<pid>`)'),
  QIM_ADMISSION_MAX_LAG_MS: intField(0, 3_600_000, 10_000).describe(
    'admission (ADR-0023): every `QIM_ADMISSION_POLL_MS` the writer reads from the broker how far the ' +
      "mailbox's consumer groups are behind; while that exceeds this bound (ms) a send waits before its " +
      'first commit step (nothing written) until delivery is down to half, or `QIM_ADMISSION_WAIT_MS`, ' +
      "then 503 (retry with the same `client_message_id`); the writer finds the mailbox's live groups on " +
      'the broker (no epoch of its own); partitions that are stalled, refused or replaying an older ' +
      "epoch's log are left out (their own metrics); a lag unreadable for 3 polls opens the gate; 0 = off",
  ),
  QIM_ADMISSION_POLL_MS: intField(100, 60_000, 500).describe("admission: how often the writer reads the mailbox groups' lag from the broker (ms)"),
  QIM_ADMISSION_WAIT_MS: intField(0, 600_000, 1_000).describe(
    'admission: most time a held send waits for the gate before `503 UNAVAILABLE` (ms; nothing was written)',
  ),
  QIM_ADMISSION_MAILBOX_CLIENT_ID: optionalString().describe(
    "admission: the mailbox's Kafka client id, which names its groups (default: `QIM_KAFKA_CLIENT_ID`, else `qim-mailbox`)",
  ),
  QIM_ADMISSION_STALL_MS: intField(0, 3_600_000, 0).describe(
    'admission: a mailbox partition whose position has not moved this long (ms) while records wait is ' +
      'stalled and not counted for admission; 0 = half of `QIM_ADMISSION_MAX_LAG_MS`',
  ),
  QIM_ADMISSION_LIGHT_FANOUT: intField(0, 1_000_000, 20).describe(
    'admission (ADR-0023 decision 10): a send to a conversation of at most this many members is light: ' +
      'while the gate is closed it passes at once (its member count read then, one O(1) Redis read), ' +
      'within `QIM_ADMISSION_LIGHT_ENTRIES_PER_S`; only heavier sends wait and are refused; 0 = every send ' +
      'waits at a closed gate',
  ),
  QIM_ADMISSION_LIGHT_ENTRIES_PER_S: intField(1, 10_000_000, 2_000).describe(
    'admission: mailbox entries (one per member) a second that light sends may add while the gate is ' +
      'closed, per writer (also the burst); beyond it light sends wait like the others. Keep it well below ' +
      'what the mailbox applies a second, so a backlog still drains; at least `QIM_ADMISSION_LIGHT_FANOUT`',
  ),
} as const;

export interface WriterConfig extends CommonConfig {
  readonly service: 'writer';
  /**
   * Where writer leases, conversation membership and recovery claims live: the chosen backend when it
   * keeps coordination (memory, redis), else Redis (scylla mode).
   */
  readonly coordination: BackendSelection;
  readonly maxFanout: number;
  /**
   * Most time a send may take before its client gets `503 UNAVAILABLE` (ms). The commit goes on in
   * the background or is finished by recovery; it is also the publish bound recovery waits out.
   */
  readonly sendDeadlineMs: number;
  /** `POST /v1/messages/batch`: most sends per batch, and the request body limit of that route (bytes). */
  readonly sendBatch: { readonly maxItems: number; readonly bodyLimit: number };
  readonly recovery: {
    readonly intervalMs: number;
    /** Only commits older than this are recovered (ms); always longer than `sendDeadlineMs`. */
    readonly graceMs: number;
    readonly batch: number;
    /** Life of a writer's claim on one commit it resumes (ms): other writers leave it alone meanwhile. */
    readonly claimMs: number;
  };
  readonly lease: {
    readonly ttlMs: number;
    readonly slots: number;
    /** How long a lost lease may stay lost (re-acquisition retried) before the process exits non-zero (ms). */
    readonly reacquireMs: number;
  };
  /** Expired-fact reclamation (`gcCommittedAuxiliary`, `gcExpiredHistory`); null when switched off (interval 0). */
  readonly housekeeping: { readonly intervalMs: number; readonly batch: number } | null;
  readonly instanceName: string;
  /**
   * Backpressure from delivery (`AdmissionGate`): sends wait at the door while the mailbox's
   * consumers are more than `maxLagMs` behind, up to `waitMs`, then 503. Null when switched off
   * (`QIM_ADMISSION_MAX_LAG_MS=0`).
   */
  readonly admission: {
    readonly maxLagMs: number;
    readonly pollMs: number;
    readonly waitMs: number;
    /**
     * A mailbox partition whose position has stood still this long (ms) while records waited is
     * stalled (a refused shard, a source hole): it does not count for admission. Default half of
     * `maxLagMs`, so a stall alone never closes the gate.
     */
    readonly stallMs: number;
    /**
     * Sends to conversations of at most `maxFanout` members pass a closed gate at once, within
     * `entriesPerSecond` mailbox entries a second (`LightLane`, ADR-0023 decision 10); null: none.
     */
    readonly light: { readonly maxFanout: number; readonly entriesPerSecond: number } | null;
    /**
     * How to find the mailbox's consumer groups on the broker (`MailboxGroupFinder` in `@qim/bus`):
     * its client id (groups `<client id>-router`, `<client id>-shards-e<epoch>`) and topics. The
     * epoch is read from the broker (the live shard groups), never configured here.
     */
    readonly mailbox: { readonly clientId: string; readonly messagesTopic: string; readonly dispatchTopic: string };
  } | null;
}

/**
 * The admission gate's settings. The mailbox names its groups from its own `QIM_KAFKA_CLIENT_ID`
 * (default `qim-mailbox`): a deployment that gives both services one environment names it alike
 * here; otherwise `QIM_ADMISSION_MAILBOX_CLIENT_ID` says the mailbox's client id. The epoch is not
 * read from the writer's environment: the gate finds the live shard groups on the broker, so an
 * epoch bump on the mailboxes alone needs nothing of the writer.
 */
function admissionOf(raw: WriterRaw): WriterConfig['admission'] {
  if (raw.QIM_ADMISSION_MAX_LAG_MS === 0) return null;
  return {
    maxLagMs: raw.QIM_ADMISSION_MAX_LAG_MS,
    pollMs: raw.QIM_ADMISSION_POLL_MS,
    waitMs: raw.QIM_ADMISSION_WAIT_MS,
    stallMs: raw.QIM_ADMISSION_STALL_MS === 0 ? Math.max(1, Math.floor(raw.QIM_ADMISSION_MAX_LAG_MS / 2)) : raw.QIM_ADMISSION_STALL_MS,
    light: raw.QIM_ADMISSION_LIGHT_FANOUT === 0 ? null : { maxFanout: raw.QIM_ADMISSION_LIGHT_FANOUT, entriesPerSecond: raw.QIM_ADMISSION_LIGHT_ENTRIES_PER_S },
    mailbox: {
      clientId: raw.QIM_ADMISSION_MAILBOX_CLIENT_ID ?? raw.QIM_KAFKA_CLIENT_ID ?? 'qim-mailbox',
      messagesTopic: raw.QIM_TOPIC_MESSAGES,
      dispatchTopic: raw.QIM_TOPIC_DISPATCH,
    },
  };
}

type Ctx = z.core.$RefinementCtx<unknown>;
type WriterRaw = z.output<z.ZodObject<typeof writerEnvShape>> & Readonly<Record<string, unknown>>;

/**
 * Time bounds that only work in one order: recovery must not resume a commit whose own send may
 * still be publishing (grace > send deadline), and a drain on shutdown must be able to wait for an
 * in-flight send (shutdown deadline > send deadline), and the outbox's produce pace must leave its
 * request time within the send deadline (pace < send deadline). Each violation names both variables.
 */
function checkTimeBounds(raw: WriterRaw, ctx: Ctx): void {
  const send = raw.QIM_SEND_DEADLINE_MS;
  if (raw.QIM_RECOVERY_GRACE_MS <= send) {
    ctx.addIssue({
      code: 'custom',
      path: ['QIM_RECOVERY_GRACE_MS'],
      message: `must be longer than QIM_SEND_DEADLINE_MS (${raw.QIM_RECOVERY_GRACE_MS} ≤ ${send} ms): recovery would republish sends still in flight`,
    });
  }
  if (raw.QIM_SHUTDOWN_DEADLINE_MS <= send) {
    ctx.addIssue({
      code: 'custom',
      path: ['QIM_SHUTDOWN_DEADLINE_MS'],
      message: `must be longer than QIM_SEND_DEADLINE_MS (${raw.QIM_SHUTDOWN_DEADLINE_MS} ≤ ${send} ms): shutdown could not drain an in-flight send`,
    });
  }
  if (raw.QIM_KAFKA_PRODUCE_PACE_MS >= send) {
    ctx.addIssue({
      code: 'custom',
      path: ['QIM_KAFKA_PRODUCE_PACE_MS'],
      message:
        `must be shorter than QIM_SEND_DEADLINE_MS (${raw.QIM_KAFKA_PRODUCE_PACE_MS} ≥ ${send} ms): ` +
        "a paced publication could not be produced within its send's deadline",
    });
  }
}

/**
 * The writer's environment schema over the backends' variables. When the chosen backend keeps no
 * coordination (scylla), the writer still needs Redis for writer-id leases and membership:
 * `QIM_REDIS_URL` is required in both redis and scylla modes.
 */
export function writerEnvSchemaOver(backends: BackendEnv) {
  return z.object({ ...writerEnvShape, ...backends.shape }).transform((raw, ctx): WriterConfig => {
    const backend = resolveBackend(backends, raw, ctx);
    const coordination = backend === null ? null : backends.coordination(raw, backend, backendEnvContext(raw.QIM_ENV, ctx));
    checkTimeBounds(raw, ctx);
    if (raw.QIM_ADMISSION_LIGHT_FANOUT > 0 && raw.QIM_ADMISSION_LIGHT_ENTRIES_PER_S < raw.QIM_ADMISSION_LIGHT_FANOUT) {
      ctx.addIssue({
        code: 'custom',
        path: ['QIM_ADMISSION_LIGHT_ENTRIES_PER_S'],
        message:
          `must be at least QIM_ADMISSION_LIGHT_FANOUT (${raw.QIM_ADMISSION_LIGHT_ENTRIES_PER_S} < ${raw.QIM_ADMISSION_LIGHT_FANOUT}): ` +
          'the largest light send would never fit the budget',
      });
    }
    if (backend === null || coordination === null) return z.NEVER;
    return {
      ...commonConfigOf(raw, backend, serviceTokensOf(raw), { port: 8080, clientId: 'qim-writer' }),
      service: 'writer',
      coordination,
      maxFanout: raw.QIM_MAX_FANOUT,
      sendDeadlineMs: raw.QIM_SEND_DEADLINE_MS,
      sendBatch: { maxItems: raw.QIM_SEND_BATCH_MAX, bodyLimit: raw.QIM_SEND_BATCH_BODY_LIMIT_BYTES },
      recovery: {
        intervalMs: raw.QIM_RECOVERY_INTERVAL_MS,
        graceMs: raw.QIM_RECOVERY_GRACE_MS,
        batch: raw.QIM_RECOVERY_BATCH,
        claimMs: raw.QIM_SEND_DEADLINE_MS,
      },
      lease: { ttlMs: raw.QIM_LEASE_TTL_MS, slots: raw.QIM_WRITER_ID_SLOTS, reacquireMs: raw.QIM_LEASE_REACQUIRE_MS },
      housekeeping: raw.QIM_HOUSEKEEPING_INTERVAL_MS === 0 ? null : { intervalMs: raw.QIM_HOUSEKEEPING_INTERVAL_MS, batch: raw.QIM_HOUSEKEEPING_BATCH },
      instanceName: raw.QIM_INSTANCE_NAME ?? `writer-${process.pid}`,
      admission: admissionOf(raw),
    };
  });
}

/** The writer's environment schema, with every registered backend's variables (parse with `parseServiceEnv`). */
export const writerEnvSchema = writerEnvSchemaOver(BACKEND_ENV);
