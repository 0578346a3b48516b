import { UnavailableError } from '@qim/store-core';
import type { RedisCommands } from '../backend/redis-commands';

/**
 * The writer's coordination Redis (membership, leases, recovery claims) with every failed command
 * turned into `UnavailableError` (503), the driver error kept as `cause` for the log: a Redis
 * outage is a temporary refusal, never a 500 and never driver text in a response.
 */
export function unavailableOnFailure(redis: RedisCommands, what: string): RedisCommands {
  const guard = <T>(call: () => Promise<T>): Promise<T> =>
    call().catch((err: unknown) => {
      throw new UnavailableError(`${what}: redis command failed`, { cause: err });
    });
  return {
    eval: (script, numKeys, ...args) => guard(() => redis.eval(script, numKeys, ...args)),
    smembers: (key) => guard(() => redis.smembers(key)),
    sismember: (key, member) => guard(() => redis.sismember(key, member)),
    set: (key, value, px, ttlMs, nx) => guard(() => redis.set(key, value, px, ttlMs, nx)),
    get: (key) => guard(() => redis.get(key)),
    ping: () => guard(() => redis.ping()),
    quit: () => redis.quit(),
  };
}
