import { UnavailableError } from '@qim/store-core';
import { Redis } from 'ioredis';

/** Options of `connectRedis` (all optional; production defaults). */
export interface ConnectRedisOptions {
  /** Attempts per command while the server is unreachable before it fails with `UnavailableError` (default 3). */
  readonly maxRetriesPerRequest?: number;
  /** Give up connecting after this long (ms, default 10 000). */
  readonly connectTimeoutMs?: number;
  /**
   * Send the commands issued in one event-loop tick as one socket write (ioredis auto-pipelining,
   * default true): under many commits in flight this replaces one write syscall per command by
   * one per tick. Order per connection is unchanged.
   */
  readonly autoPipelining?: boolean;
}

/**
 * Opens an ioredis client for `url` (`redis://[user:pass@]host:port[/db]`, `rediss://` for TLS, or
 * `unix:///path/to/redis.sock` for a server on this host's Unix socket) and waits until it is
 * connected. This library is the only one that imports the driver; callers hold the client
 * opaquely and hand it to the stores (and to `checkRedisReadiness`). Reconnects on its own after a
 * server restart (scripts are re-sent by EVALSHA's EVAL fallback). A failed connect →
 * `UnavailableError` and nothing left open.
 */
export async function connectRedis(url: string, options: ConnectRedisOptions = {}): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: options.maxRetriesPerRequest ?? 3,
    connectTimeout: options.connectTimeoutMs ?? 10_000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
    enableAutoPipelining: options.autoPipelining ?? true,
  });
  try {
    await redis.connect();
  } catch (e) {
    redis.disconnect();
    throw new UnavailableError(`redis at ${redisWhere(url)} is unreachable: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  return redis;
}

/** Where a Redis URL points, for messages: host:port, or the socket path of a `unix:///path` URL (no credentials either way). */
export function redisWhere(url: string): string {
  const u = new URL(url);
  return u.protocol === 'unix:' ? u.pathname : u.host;
}
