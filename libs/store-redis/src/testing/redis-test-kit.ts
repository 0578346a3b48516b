import type { Id128, MailboxStore } from '@qim/store-core';
import type { BackendTestKit } from '@qim/store-core/testing';
import type { Cluster, Redis } from 'ioredis';
import type { RedisBackendConfig } from '../backend/redis-backend-module';
import { RedisKeys } from '../keys/redis-keys';
import { RedisMailboxStore } from '../mailbox/redis-mailbox-store';
import { RedisMessageStore } from '../message/redis-message-store';
import { connectRedis } from '../redis/connect-redis';
import { targetWhere } from '../redis/redis-target';
import type { RedisTarget } from '../redis/redis-target';
import { countSocketWrites } from '../redis/socket-writes';

/** One key as the server holds it. */
export interface RedisKeyFacts {
  readonly key: string;
  /** `TYPE`: `none` once the key is gone. */
  readonly type: string;
  /** `PEXPIRETIME`: the absolute expiry (ms), -1 without one, -2 gone. */
  readonly expiresAtMs: number;
  /** Members of a hash, zset or set key; 0 otherwise. */
  readonly members: number;
}

/** A key's serialized value and absolute expiry (`DUMP`, `PEXPIRETIME`), for `restore`. */
export interface RedisKeySnapshot {
  readonly key: string;
  readonly dump: Buffer;
  /** Absolute expiry (ms); ≤ 0 without one. */
  readonly expiresAtMs: number;
}

/**
 * What the Redis kit lets a test see and do below the stores, on one server or a cluster alike (a
 * cluster: `SCAN` on every primary, every other command routed by its key): the keys of the
 * namespace, their facts, and `DUMP`/`RESTORE` to roll storage back behind the stores' backs.
 */
export interface RedisInspection {
  readonly kind: 'redis';
  readonly namespace: string;
  readonly cluster: boolean;
  /** Every key of the namespace (`<namespace>:*`). */
  keys(): Promise<string[]>;
  describe(keys: readonly string[]): Promise<RedisKeyFacts[]>;
  /** Snapshots of the keys still present. */
  snapshot(keys: readonly string[]): Promise<RedisKeySnapshot[]>;
  /** Puts snapshots back (`RESTORE … ABSTTL REPLACE`). */
  restore(snapshots: readonly RedisKeySnapshot[]): Promise<void>;
  del(keys: readonly string[]): Promise<void>;
  /** Commands the message store has sent so far (scripts and plain commands). */
  messageStoreCommands(): number;
  /** Socket writes of the message store's connection from now on (standalone only: a cluster has one socket per node). */
  countMessageStoreSocketWrites(): { count(): number };
  /** Commands a mailbox store this kit made has sent so far (scripts and plain commands). */
  mailboxStoreCommands(store: MailboxStore): number;
  /** The prefix of every mailbox key of `(tenant, user)` in the namespace (its bucket hash tag included): what a raw baseline writes under. */
  userKeyPrefix(tenantId: Id128, userId: Id128): string;
}

const CHUNK = 2_000;

/** `op` over `items` a chunk at a time, each chunk's commands in flight together (auto-pipelined per node). */
async function chunked<T, R>(items: readonly T[], op: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(...(await Promise.all(items.slice(i, i + CHUNK).map(op))));
  return out;
}

async function quit(redis: Redis | Cluster): Promise<void> {
  await redis.quit().catch(() => redis.disconnect());
}

/** The primaries of a cluster client, or the one server: where `SCAN`, `INFO` and `KEYS` go. */
export function redisServers(client: Redis | Cluster): Redis[] {
  return client.isCluster ? (client as Cluster).nodes('master') : [client as Redis];
}

/**
 * A plain client of the Redis backend's server or cluster, for a benchmark's raw baseline and its
 * server statistics (the caller quits it); the same connection settings as the stores'.
 */
export function connectRawRedis(cfg: RedisBackendConfig): Promise<Redis | Cluster> {
  return connectRedis(cfg.redisUrl);
}

/** The Redis backend's test kit: both stores on one connection (or cluster client), an admin connection for the inspection. */
export const redisTestKit: BackendTestKit<RedisBackendConfig, RedisInspection> = {
  kind: 'redis',
  open: async (cfg, { clock, tuning = {}, keep = false }) => {
    const target: RedisTarget = cfg.redisUrl;
    const namespace = cfg.namespace;
    const redis = await connectRedis(target);
    const admin = await connectRedis(target);
    const common = {
      redis,
      namespace,
      clock,
      ownsConnection: false,
      ...(cfg.replicaAcks === undefined ? {} : { replicaAcks: cfg.replicaAcks }),
      ...(tuning.physicalGraceMs === undefined ? {} : { physicalGraceMs: tuning.physicalGraceMs }),
    };
    const messages = new RedisMessageStore({ ...common, ...(tuning.commitAuxTtlMs === undefined ? {} : { commitAuxTtlMs: tuning.commitAuxTtlMs }) });
    const made = new WeakMap<MailboxStore, RedisMailboxStore>();
    const keyNames = new RedisKeys(namespace);
    const keys = async (): Promise<string[]> => {
      const all: string[] = [];
      for (const node of redisServers(admin)) {
        let cursor = '0';
        do {
          const [next, batch] = await node.scan(cursor, 'MATCH', `${namespace}:*`, 'COUNT', 1000);
          cursor = next;
          all.push(...batch);
        } while (cursor !== '0');
      }
      return all;
    };
    const del = async (ks: readonly string[]): Promise<void> => {
      await chunked(ks, (k) => admin.unlink(k));
    };
    const inspect: RedisInspection = {
      kind: 'redis',
      namespace,
      cluster: typeof target !== 'string',
      keys,
      describe: (ks) =>
        chunked(ks, async (key) => {
          const [type, at] = await Promise.all([admin.type(key), admin.pexpiretime(key)]);
          const members = type === 'zset' ? await admin.zcard(key) : type === 'hash' ? await admin.hlen(key) : type === 'set' ? await admin.scard(key) : 0;
          return { key, type, expiresAtMs: Number(at), members };
        }),
      snapshot: async (ks) => {
        const all = await chunked(ks, async (key) => {
          const [dump, at] = await Promise.all([admin.dumpBuffer(key), admin.pexpiretime(key)]);
          return dump === null ? null : { key, dump, expiresAtMs: Number(at) };
        });
        return all.filter((s): s is RedisKeySnapshot => s !== null);
      },
      restore: async (snaps) => {
        // the typed command, not `call`: a cluster client's auto-pipelining takes the slot from the first argument
        await chunked(snaps, ({ key, dump, expiresAtMs }) =>
          expiresAtMs > 0 ? admin.restore(key, String(expiresAtMs), dump, 'REPLACE', 'ABSTTL') : admin.restore(key, '0', dump, 'REPLACE'),
        );
      },
      del,
      messageStoreCommands: () => messages.io.reads + messages.io.writes,
      countMessageStoreSocketWrites: () => {
        if (typeof target !== 'string') throw new Error('socket writes are counted on a standalone connection only (a cluster client has one socket per node)');
        return countSocketWrites(redis as Redis);
      },
      mailboxStoreCommands: (store) => {
        const s = made.get(store);
        if (s === undefined) throw new Error('not a mailbox store of this kit');
        return s.io.reads + s.io.writes;
      },
      userKeyPrefix: (tenantId, userId) => keyNames.user(tenantId, userId).prefix,
    };
    return {
      kind: 'redis',
      messages,
      mailboxStore: (shardEpoch, gc) => {
        const store = new RedisMailboxStore({
          ...common,
          shardEpoch,
          gc,
          ...(tuning.applyConcurrency === undefined ? {} : { applyConcurrency: tuning.applyConcurrency }),
          ...(tuning.plainPath === undefined ? {} : { plainPath: tuning.plainPath }),
        });
        made.set(store, store);
        return store;
      },
      inspect,
      where: `${targetWhere(target)} namespace ${namespace}`,
      close: async () => {
        await messages.close();
        if (!keep) await del(await keys());
        await quit(redis);
        await quit(admin);
      },
    };
  },
};
