import { connectRedis } from '@qim/store-redis';
import type { RedisCommands } from './redis-commands';

/**
 * The writer's Redis connection for membership and leases. The connection itself is made by
 * `@qim/store-redis` (the only owner of the driver); this library only speaks the few commands of
 * `RedisCommands` over it.
 */
export async function openRedisCommands(url: string): Promise<RedisCommands> {
  return connectRedis(url);
}
