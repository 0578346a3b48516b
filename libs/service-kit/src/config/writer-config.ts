import { z } from 'zod';
import { intField, optionalString } from './env-fields';
import type { CommonConfig } from './service-env';
import { commonConfigOf, commonEnvShape, resolveBackend } from './service-env';
import { serviceTokensOf } from './service-tokens';

/** Writer-only variables. */
export const writerEnvShape = {
  ...commonEnvShape,
  QIM_MAX_FANOUT: intField(1, 1_000_000, 10_000),
  QIM_SEND_DEADLINE_MS: intField(100, 600_000, 10_000),
  QIM_RECOVERY_INTERVAL_MS: intField(100, 600_000, 3_000),
  QIM_RECOVERY_GRACE_MS: intField(0, 3_600_000, 20_000),
  QIM_RECOVERY_BATCH: intField(1, 10_000, 200),
  QIM_LEASE_TTL_MS: intField(1_000, 600_000, 15_000),
  QIM_LEASE_REACQUIRE_MS: intField(0, 3_600_000, 30_000),
  QIM_WRITER_ID_SLOTS: intField(1, 65_536, 1_024),
  QIM_HOUSEKEEPING_INTERVAL_MS: intField(0, 86_400_000, 10_000),
  QIM_HOUSEKEEPING_BATCH: intField(1, 100_000, 1_000),
  QIM_INSTANCE_NAME: optionalString(),
  QIM_ADMISSION_MAX_LAG_MS: intField(0, 3_600_000, 10_000),
  QIM_ADMISSION_POLL_MS: intField(100, 60_000, 500),
  QIM_ADMISSION_WAIT_MS: intField(0, 600_000, 1_000),
  QIM_ADMISSION_MAILBOX_CLIENT_ID: optionalString(),
} as const;

export interface WriterConfig extends CommonConfig {
  readonly service: 'writer';
  /** Writer leases and conversation membership live in Redis unless the backend is memory. */
  readonly redisUrl: string | null;
  readonly maxFanout: number;
  /**
   * Most time a send may take before its client gets `503 UNAVAILABLE` (ms). The commit goes on in
   * the background or is finished by recovery; it is also the publish bound recovery waits out.
   */
  readonly sendDeadlineMs: number;
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
    /** The mailbox's consumer groups and their topics (named as the mailbox names them: `<client id>-router`, `<client id>-shards-e<epoch>`). */
    readonly groups: readonly { readonly groupId: string; readonly topic: string }[];
  } | null;
}

/**
 * The mailbox groups the writer's admission gate watches. The mailbox names them from its own
 * `QIM_KAFKA_CLIENT_ID` (default `qim-mailbox`) and `QIM_MAILBOX_EPOCH`: a deployment that gives
 * both services one environment names them alike here; otherwise `QIM_ADMISSION_MAILBOX_CLIENT_ID`
 * says the mailbox's client id.
 */
function admissionOf(raw: WriterRaw): WriterConfig['admission'] {
  if (raw.QIM_ADMISSION_MAX_LAG_MS === 0) return null;
  const mailbox = raw.QIM_ADMISSION_MAILBOX_CLIENT_ID ?? raw.QIM_KAFKA_CLIENT_ID ?? 'qim-mailbox';
  return {
    maxLagMs: raw.QIM_ADMISSION_MAX_LAG_MS,
    pollMs: raw.QIM_ADMISSION_POLL_MS,
    waitMs: raw.QIM_ADMISSION_WAIT_MS,
    groups: [
      { groupId: `${mailbox}-router`, topic: raw.QIM_TOPIC_MESSAGES },
      { groupId: `${mailbox}-shards-e${raw.QIM_MAILBOX_EPOCH ?? 0}`, topic: raw.QIM_TOPIC_DISPATCH },
    ],
  };
}

type Ctx = z.core.$RefinementCtx<unknown>;
type WriterRaw = z.output<z.ZodObject<typeof writerEnvShape>>;

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
      message: `must be shorter than QIM_SEND_DEADLINE_MS (${raw.QIM_KAFKA_PRODUCE_PACE_MS} ≥ ${send} ms): a paced publication could not be produced within its send's deadline`,
    });
  }
}

/**
 * The writer's environment schema. In scylla mode the writer still needs Redis (writer-id leases
 * and membership): `QIM_REDIS_URL` is required in both redis and scylla modes.
 */
export const writerEnvSchema = z.object(writerEnvShape).transform((raw, ctx): WriterConfig => {
  const backend = resolveBackend(raw, ctx);
  if (backend?.kind === 'scylla' && raw.QIM_REDIS_URL === undefined) {
    ctx.addIssue({ code: 'custom', path: ['QIM_REDIS_URL'], message: 'required by the writer in scylla mode (leases, membership)' });
  }
  checkTimeBounds(raw, ctx);
  if (backend === null) return z.NEVER;
  return {
    ...commonConfigOf(raw, backend, serviceTokensOf(raw), { port: 8080, clientId: 'qim-writer' }),
    service: 'writer',
    redisUrl: backend.kind === 'memory' ? null : raw.QIM_REDIS_URL ?? null,
    maxFanout: raw.QIM_MAX_FANOUT,
    sendDeadlineMs: raw.QIM_SEND_DEADLINE_MS,
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
