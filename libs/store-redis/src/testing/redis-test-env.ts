import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/**
 * The Redis the backend specs run against: `QIM_REDIS_URL` (printed by `tools/infra/infra env`).
 * Missing → the spec FAILS with this message; it is never skipped.
 */
export function requireRedisUrl(): string {
  const url = process.env['QIM_REDIS_URL'];
  if (url === undefined || url.trim() === '') {
    throw new Error('QIM_REDIS_URL is not set: run `tools/infra/infra up redis` and `eval "$(tools/infra/infra env)"` (Redis specs never skip)');
  }
  return url;
}

/** A fresh client for specs: production settings (auto-pipelining), failing fast when the server is gone. */
export function testClient(url = requireRedisUrl()): Redis {
  return new Redis(url, { maxRetriesPerRequest: 2, enableAutoPipelining: true });
}

/** A namespace unique to one harness / suite run: `qimt-<16 hex>`. */
export function testNamespace(): string {
  return `qimt-${randomBytes(8).toString('hex')}`;
}

/** Deletes every key of `namespace` (SCAN + UNLINK); returns how many were removed. */
export async function dropNamespace(redis: Redis, namespace: string): Promise<number> {
  let cursor = '0';
  let removed = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${namespace}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) removed += await redis.unlink(...keys);
  } while (cursor !== '0');
  return removed;
}
