import { z } from 'zod';
import { intField, optionalString } from './env-fields';
import type { CommonConfig } from './service-env';
import { commonConfigOf, commonEnvShape, resolveBackend } from './service-env';

/** Writer-only variables. */
export const writerEnvShape = {
  ...commonEnvShape,
  QIM_MAX_FANOUT: intField(1, 1_000_000, 10_000),
  QIM_RECOVERY_INTERVAL_MS: intField(100, 600_000, 3_000),
  QIM_RECOVERY_GRACE_MS: intField(0, 3_600_000, 5_000),
  QIM_RECOVERY_BATCH: intField(1, 10_000, 200),
  QIM_LEASE_TTL_MS: intField(1_000, 600_000, 15_000),
  QIM_WRITER_ID_SLOTS: intField(1, 65_536, 1_024),
  QIM_INSTANCE_NAME: optionalString(),
} as const;

export interface WriterConfig extends CommonConfig {
  readonly service: 'writer';
  /** Writer leases and conversation membership live in Redis unless the backend is memory. */
  readonly redisUrl: string | null;
  readonly maxFanout: number;
  readonly recovery: { readonly intervalMs: number; readonly graceMs: number; readonly batch: number };
  readonly lease: { readonly ttlMs: number; readonly slots: number };
  readonly instanceName: string;
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
  if (backend === null) return z.NEVER;
  return {
    ...commonConfigOf(raw, backend, { port: 8080, clientId: 'qim-writer' }),
    service: 'writer',
    redisUrl: backend.kind === 'memory' ? null : raw.QIM_REDIS_URL ?? null,
    maxFanout: raw.QIM_MAX_FANOUT,
    recovery: { intervalMs: raw.QIM_RECOVERY_INTERVAL_MS, graceMs: raw.QIM_RECOVERY_GRACE_MS, batch: raw.QIM_RECOVERY_BATCH },
    lease: { ttlMs: raw.QIM_LEASE_TTL_MS, slots: raw.QIM_WRITER_ID_SLOTS },
    instanceName: raw.QIM_INSTANCE_NAME ?? `writer-${process.pid}`,
  };
});
