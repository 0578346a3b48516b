import type { StartupLog } from '../backend/backend-types';
import { openRedisCommands } from '../backend/open-redis';
import type { ReadinessCheck } from '../http/readiness';
import type { MembershipDirectory } from '../membership/membership-directory';
import { MemoryMembership } from '../membership/memory-membership';
import { RedisMembership } from '../membership/redis-membership';
import { MemoryLeaseStore } from '../writer-identity/memory-lease-store';
import { RedisLeaseStore } from '../writer-identity/redis-lease-store';
import type { WriterLeaseStore } from '../writer-identity/writer-lease';
import type { RecoveryClaims } from './recovery-claims';
import { MemoryRecoveryClaims } from './recovery-claims';
import { RedisRecoveryClaims } from './redis-recovery-claims';
import { unavailableOnFailure } from './unavailable-on-failure';

/** The writer's membership directory, writer-id leases and recovery claims, behind their small interfaces. */
export interface Coordination {
  readonly membership: MembershipDirectory;
  readonly leases: WriterLeaseStore;
  readonly claims: RecoveryClaims;
  readonly readiness: ReadinessCheck;
  close(): Promise<void>;
}

/**
 * Redis (`redisUrl` given: redis and scylla modes) or in-process (null: memory mode, development/
 * test only — membership, leases and claims then live and die with the process, one writer at a
 * time). Every Redis failure surfaces as `UnavailableError` (503). `owner` identifies this process
 * in recovery claims.
 */
export async function openCoordination(redisUrl: string | null, namespace: string, step: StartupLog, owner: string): Promise<Coordination> {
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
  const redis = unavailableOnFailure(await openRedisCommands(redisUrl), 'coordination store');
  step('coordination', { kind: 'redis' });
  return {
    membership: new RedisMembership(redis, namespace),
    leases: new RedisLeaseStore(redis, namespace),
    claims: new RedisRecoveryClaims(redis, namespace, owner),
    readiness: {
      name: 'coordination',
      check: async () => ({ ok: (await redis.ping()) === 'PONG', detail: 'redis ping' }),
    },
    close: async () => {
      await redis.quit();
    },
  };
}
