import type { MembershipDirectory, RecoveryClaims, WriterLeaseStore } from '@qim/store-core';
import { MemoryLeaseStore, MemoryMembership, MemoryRecoveryClaims } from '@qim/store-memory';
import { RedisWriterCoordination } from '@qim/store-redis';
import type { RedisTarget, ReplicaAcks } from '@qim/store-redis';
import type { ReadinessCheck, StartupLog } from '@qim/service-kit';

/** The writer's membership directory, writer-id leases and recovery claims, behind their store-core ports. */
export interface Coordination {
  readonly membership: MembershipDirectory;
  readonly leases: WriterLeaseStore;
  readonly claims: RecoveryClaims;
  readonly readiness: ReadinessCheck;
  close(): Promise<void>;
}

/**
 * Redis (`redisUrl` given — a URL or a cluster — : redis and scylla modes; lease writes wait for `replicaAcks`; `@qim/store-redis` owns the connection and the
 * scripts) or in-process (null: memory mode, development/test only — membership, leases and claims
 * then live and die with the process, one writer at a time). Every Redis failure surfaces as
 * `UnavailableError` (503). `owner` identifies this process in recovery claims.
 */
export async function openCoordination(
  redisUrl: RedisTarget | null,
  namespace: string,
  step: StartupLog,
  owner: string,
  replicaAcks?: ReplicaAcks,
): Promise<Coordination> {
  if (redisUrl === null) {
    step('coordination', { kind: 'memory' });
    return {
      membership: new MemoryMembership(),
      leases: new MemoryLeaseStore(),
      claims: new MemoryRecoveryClaims(owner),
      readiness: { name: 'coordination', check: async () => ({ ok: true, detail: 'in-process (memory mode)' }) },
      close: async () => {},
    };
  }
  const redis = await RedisWriterCoordination.open(redisUrl, { namespace, owner, ...(replicaAcks === undefined ? {} : { replicaAcks }) });
  step('coordination', { kind: 'redis' });
  return {
    membership: redis.membership,
    leases: redis.leases,
    claims: redis.claims,
    readiness: { name: 'coordination', check: async () => ({ ok: await redis.ping(), detail: 'redis ping' }) },
    close: () => redis.close(),
  };
}
