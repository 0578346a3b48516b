import { UnavailableError } from '@qim/store-core';
import { Cluster, Redis } from 'ioredis';
import type { RedisOptions } from 'ioredis';
import { targetWhere } from './redis-target';
import type { RedisClusterTarget, RedisTarget } from './redis-target';

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
  /**
   * Longest wait for one command's reply (ms, default 5 000): past it the call fails with
   * `UnavailableError` whether or not the server ran it. A server that stops answering while its
   * connection stays open (paused, or dropping packets) is otherwise noticed only when TCP gives up,
   * after about 15 minutes.
   */
  readonly commandTimeoutMs?: number;
}

/** `ConnectRedisOptions.commandTimeoutMs` when not given. */
export const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = 5_000;

/**
 * Opens an ioredis client for `target` — a URL (`redis://[user:pass@]host:port[/db]`, `rediss://`
 * for TLS, or `unix:///path/to/redis.sock` for a server on this host's Unix socket), or a Redis
 * Cluster (`parseClusterNodes`; an ioredis `Cluster`, per-node settings as below) — and waits until
 * it is connected (a cluster: until its slot map is read). This library is the only one that imports the driver; callers hold the client
 * opaquely and hand it to the stores (and to `checkRedisReadiness`). Reconnects on its own after a
 * server restart (scripts are re-sent by EVALSHA's EVAL fallback). A failed connect →
 * `UnavailableError` and nothing left open.
 *
 * Every command is bounded (`commandTimeoutMs`). A timed-out command's outcome is unknown: it may
 * still run when the server wakes. That is safe because every store step is idempotent under its
 * key (a caller retries it as it is) and because the timed-out command stays in the connection's
 * order: the connection is kept (no socket timeout), so a paused server runs it before the retry
 * sent after it; and commands unanswered when a connection drops are never sent again on the next
 * one (`autoResendUnfulfilledCommands: false`), where they could land after the caller's retry.
 * Their callers get the timeout instead. TCP keep-alive probes an idle connection every 10 s.
 */
export async function connectRedis(url: string, options?: ConnectRedisOptions): Promise<Redis>;
export async function connectRedis(target: RedisTarget, options?: ConnectRedisOptions): Promise<Redis | Cluster>;
export async function connectRedis(target: RedisTarget, options: ConnectRedisOptions = {}): Promise<Redis | Cluster> {
  const redis = typeof target === 'string' ? new Redis(target, { ...nodeOptions(options), lazyConnect: true, retryStrategy }) : clusterClient(target, options);
  try {
    await redis.connect();
  } catch (e) {
    redis.disconnect();
    throw new UnavailableError(`redis at ${targetWhere(target)} is unreachable: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  return redis;
}

const retryStrategy = (attempt: number): number => Math.min(attempt * 100, 2_000);

/** What every connection gets, standalone or to one node of a cluster (`connectRedis`). */
function nodeOptions(options: ConnectRedisOptions): RedisOptions {
  return {
    maxRetriesPerRequest: options.maxRetriesPerRequest ?? 3,
    connectTimeout: options.connectTimeoutMs ?? 10_000,
    enableAutoPipelining: options.autoPipelining ?? true,
    commandTimeout: options.commandTimeoutMs ?? DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
    autoResendUnfulfilledCommands: false,
    keepAlive: 10_000,
  };
}

/**
 * A Redis Cluster client: the per-node settings of a standalone connection (command timeout, no
 * resend of unanswered commands, keep-alive), reads and writes on primaries only, MOVED/ASK
 * followed, and a command refused with CLUSTERDOWN or TRYAGAIN (a slot without a primary during a
 * failover) retried every 100 ms — each command still bounded by the command timeout, after which
 * it fails with `UnavailableError` (503, retry the same step). Slots are re-read every 5 s and on
 * every MOVED.
 */
function clusterClient(target: RedisClusterTarget, options: ConnectRedisOptions): Cluster {
  const { enableAutoPipelining, ...perNode } = nodeOptions(options);
  return new Cluster(
    target.clusterNodes.map((n) => ({ host: n.host, port: n.port })),
    {
      lazyConnect: true,
      enableAutoPipelining,
      scaleReads: 'master',
      maxRedirections: 16,
      retryDelayOnFailover: 100,
      retryDelayOnClusterDown: 100,
      retryDelayOnTryAgain: 100,
      slotsRefreshTimeout: 2_000,
      slotsRefreshInterval: 5_000,
      clusterRetryStrategy: retryStrategy,
      redisOptions: {
        ...perNode,
        ...(target.tls ? { tls: {} } : {}),
        ...(target.username === undefined ? {} : { username: target.username }),
        ...(target.password === undefined ? {} : { password: target.password }),
      },
    },
  );
}

/** Where a Redis URL points, for messages: host:port, or the socket path of a `unix:///path` URL (no credentials either way). */
export function redisWhere(url: string): string {
  const u = new URL(url);
  return u.protocol === 'unix:' ? u.pathname : u.host;
}
