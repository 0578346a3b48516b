import type { MembershipDirectory, RecoveryClaims, WriterLeaseStore } from '@qim/store-core';
import type { Cluster, Redis } from 'ioredis';
import { RedisKeys } from '../keys/redis-keys';
import { RedisMembershipDirectory } from '../membership/redis-membership';
import { connectRedis } from '../redis/connect-redis';
import type { RedisTarget } from '../redis/redis-target';
import type { ReplicaAcks } from '../redis/replica-acks';
import { RedisIo, wrapDriverError } from '../redis/redis-io';
import { RedisLeaseStore } from './redis-lease-store';
import { RedisRecoveryClaims } from './redis-recovery-claims';

/** Options of `RedisWriterCoordination.open`. */
export interface RedisWriterCoordinationOptions {
  /** Prefix of every key (the stores' namespace in redis mode). */
  readonly namespace: string;
  /** This writer process in recovery claims (its lease token). */
  readonly owner: string;
  /** How lease writes wait for replicas (ADR-0038; default none). */
  readonly replicaAcks?: ReplicaAcks;
}

/**
 * The writer's coordination state in Redis — conversation membership, writer-id leases and recovery
 * claims — over one connection it owns. Every command failure surfaces as a store-core error
 * (`UnavailableError` while Redis is unreachable or closed), never as driver text.
 */
export class RedisWriterCoordination {
  readonly membership: MembershipDirectory;
  readonly leases: WriterLeaseStore;
  readonly claims: RecoveryClaims;
  private readonly io: RedisIo;

  private constructor(
    private readonly redis: Redis | Cluster,
    options: RedisWriterCoordinationOptions,
  ) {
    this.io = new RedisIo(redis, { namespace: options.namespace, ...(options.replicaAcks === undefined ? {} : { replicaAcks: options.replicaAcks }) });
    const keys = new RedisKeys(options.namespace);
    this.membership = new RedisMembershipDirectory(this.io, keys);
    this.leases = new RedisLeaseStore(this.io, keys);
    this.claims = new RedisRecoveryClaims(this.io, keys, options.owner);
  }

  /** Connects to `target`, a URL or a cluster (`UnavailableError` when unreachable, nothing left open). */
  static async open(target: RedisTarget, options: RedisWriterCoordinationOptions): Promise<RedisWriterCoordination> {
    const redis = await connectRedis(target);
    try {
      return new RedisWriterCoordination(redis, options);
    } catch (e) {
      redis.disconnect();
      throw e;
    }
  }

  /** True when the server answers PING; a failure → `UnavailableError`. */
  async ping(): Promise<boolean> {
    try {
      return (await this.redis.ping()) === 'PONG';
    } catch (e) {
      throw wrapDriverError(e, 'coordination store ping');
    }
  }

  async close(): Promise<void> {
    try {
      await this.redis.quit();
    } catch {
      this.redis.disconnect();
    }
  }
}
