import type { Clock, MailboxGcConfig, MailboxStore, MessageStore } from '@qim/store-core';
import { decodeMailboxEntry, decodeMessageRecord } from '@qim/store-core';
import type { ConfigOfKind, RedisKeySnapshot, TestStoreTuning, TestStores } from '@qim/backends/testing';
import { openTestStores } from '@qim/backends/testing';

import type { BackendKind } from './structures';
import { redisStructureOf } from './structures';

export type { BackendKind } from './structures';

/** Lifetimes handed to the stores, in the stores' (real or manual) ms. */
export interface StoreLifetimes {
  readonly gc: MailboxGcConfig;
  readonly commitAuxTtlMs: bigint;
  /** Redis only: physical clean-up grace after a logical expiry. */
  readonly physicalGraceMs: bigint;
  /** Memory and Cassandra: lifetime of a released bucket proof (ADR-0022 §6), from its release. */
  readonly releasedProofTtlMs: bigint;
}

/** One opened backend: the message store, the mailbox store of each shard, and a storage census. */
export interface SoakBackend {
  readonly kind: BackendKind;
  readonly messages: MessageStore;
  /**
   * The mailbox store of `shard` bound to mailbox `epoch`, with `gc` (default: the backend's; another
   * retention is another store on the same storage, as a process started with another setting).
   * One instance per shard, epoch and gc.
   */
  storeFor(shard: number, epoch: number, gc?: MailboxGcConfig): Promise<MailboxStore>;
  /**
   * Rows / keys per structure held at simulated time `nowMs` (see each backend for how server TTLs,
   * which run on real time, are accounted at the simulated time).
   */
  census(nowMs: bigint): Promise<Record<string, number>>;
  /**
   * Redis only: a server that loses its last writes (a backup restored, or a restart under
   * `appendfsync everysec`), made deterministic: `snapshot()` keeps the mailbox's keys (`{mb:…}`,
   * `{sf:…}`: DUMP and absolute expiry), `restore()` puts them back behind the stores' backs —
   * every mailbox write in between is lost, the message store's keys are untouched.
   * `keepFrontiers` (sabotage): the shard frontiers keep their values, standing over the lost
   * entries — what the store's run-id and frontier checks exist to prevent.
   */
  readonly lostWrites?: { snapshot(): Promise<number>; restore(keepFrontiers?: boolean): Promise<number> };
  /** A mailbox process restart: the mailbox store instances are closed and new ones opened on next use. */
  restartMailboxStores(): Promise<void>;
  /** Where the data lives (printed). */
  readonly where: string;
  close(): Promise<void>;
}

/** The stores' tuning of the soak's lifetimes. */
function tuningOf(life: StoreLifetimes): TestStoreTuning {
  return { commitAuxTtlMs: life.commitAuxTtlMs, physicalGraceMs: life.physicalGraceMs, releasedProofTtlMs: life.releasedProofTtlMs };
}

/** One mailbox store per shard, epoch and gc over `stores`' storage, and the restart that drops them. */
function mailboxStores(stores: TestStores, life: StoreLifetimes): Pick<SoakBackend, 'storeFor' | 'restartMailboxStores'> & { closeAll(): Promise<void> } {
  const open = new Map<string, MailboxStore>();
  const closeAll = async (): Promise<void> => {
    for (const s of open.values()) await s.close();
    open.clear();
  };
  return {
    storeFor: async (shard, epoch, gc = life.gc) => {
      const key = `${shard}:${epoch}:${gc.entryRetentionMs}:${gc.dispatchDedupeMs}`;
      let s = open.get(key);
      if (!s) open.set(key, (s = stores.mailboxStore({ shard, epoch }, gc)));
      return s;
    },
    restartMailboxStores: closeAll,
    closeAll,
  };
}

export async function openMemory(clock: Clock, life: StoreLifetimes): Promise<SoakBackend> {
  const stores = await openTestStores({ kind: 'memory' }, { clock, tuning: tuningOf(life) });
  const mailbox = mailboxStores(stores, life);
  return {
    kind: 'memory',
    messages: stores.messages,
    where: stores.where,
    storeFor: mailbox.storeFor,
    restartMailboxStores: mailbox.restartMailboxStores,
    census: async () => stores.inspect.census(),
    close: async () => {
      await mailbox.closeAll();
      await stores.close();
    },
  };
}

/**
 * The soak on Redis: `cfg` as the services read it (`QIM_REDIS_URL` or `QIM_REDIS_CLUSTER_NODES`), the
 * soak's own namespace. The census and the lost writes go through the kit's inspection, which scans
 * every primary of a cluster.
 */
export async function openRedis(cfg: ConfigOfKind<'redis'>, clock: Clock, life: StoreLifetimes, keep: boolean): Promise<SoakBackend> {
  const stores = await openTestStores(cfg, { clock, tuning: tuningOf(life), keep });
  const inspect = stores.inspect;
  const namespace = inspect.namespace;
  const mailbox = mailboxStores(stores, life);
  /** The mailbox's keys (shard frontiers and dispatch index, users' mailboxes) — what lostWrites rolls back. */
  const mailboxKey = (k: string): boolean => k.startsWith(`${namespace}:{mb:`) || k.startsWith(`${namespace}:{sf:`);
  let snapshot: RedisKeySnapshot[] | null = null;
  return {
    kind: 'redis',
    messages: stores.messages,
    where: stores.where,
    storeFor: mailbox.storeFor,
    restartMailboxStores: mailbox.restartMailboxStores,
    lostWrites: {
      snapshot: async () => {
        snapshot = await inspect.snapshot((await inspect.keys()).filter(mailboxKey));
        return snapshot.length;
      },
      restore: async (keepFrontiers = false) => {
        if (snapshot === null) throw new Error('soak: lost writes restored without a snapshot');
        const frontier = (k: string): boolean => k.includes(':mbd-frontier:');
        await inspect.del((await inspect.keys()).filter((k) => mailboxKey(k) && !(keepFrontiers && frontier(k))));
        const back = snapshot.filter((x) => !(keepFrontiers && frontier(x.key)));
        await inspect.restore(back);
        snapshot = null;
        return back.length;
      },
    },
    census: async (nowMs) => {
      const counts: Record<string, number> = {};
      for (const k of await inspect.describe(await inspect.keys())) {
        // a key whose physical expiry passed on the simulated clock is gone for a server living then
        if (k.type === 'none' || (k.expiresAtMs !== -1 && BigInt(k.expiresAtMs) <= nowMs)) continue;
        const s = redisStructureOf(namespace, k.key);
        counts[`${s} keys`] = (counts[`${s} keys`] ?? 0) + 1;
        if (k.type === 'zset' || k.type === 'hash' || k.type === 'set') counts[`${s} members`] = (counts[`${s} members`] ?? 0) + k.members;
      }
      return counts;
    },
    close: async () => {
      await mailbox.closeAll();
      await stores.close();
    },
  };
}

const big = (v: unknown): bigint => BigInt(String(v));

/** The soak on Cassandra: a scratch keyspace (`qim_soak_…`), dropped first and, unless `keep`, at the end. */
export async function openScylla(
  cfg: ConfigOfKind<'scylla'>,
  clock: Clock,
  life: StoreLifetimes,
  dispatchCreatedAt: (dispatchId: string) => bigint | undefined,
  keep: boolean,
): Promise<SoakBackend> {
  const stores = await openTestStores(cfg, { clock, tuning: tuningOf(life), scratch: true, keep });
  const inspect = stores.inspect;
  const mailbox = mailboxStores(stores, life);
  const ks = inspect.keyspace;
  /** Released bucket proofs (a TTL on the row) → the simulated time the census first saw them released. */
  const releasedSeen = new Map<string, bigint>();
  /**
   * Rows held at simulated time `now`: a row with a TTL counts until the expiry the store derived that
   * TTL from (known per table); a row without TTL always; a TTL row of a table the soak does not
   * know counts always (conservative: growth shows).
   */
  const held = async (name: string, now: bigint): Promise<number> => {
    let n = 0;
    switch (name) {
      case 'mailbox_entry':
        for await (const r of inspect.rows(`SELECT entry FROM ${ks}.mailbox_entry`)) if (decodeMailboxEntry(r['entry'] as Buffer).expiresAt > now) n++;
        return n;
      case 'dispatch_index':
        for await (const r of inspect.rows(`SELECT dispatch_id FROM ${ks}.dispatch_index`)) {
          const created = dispatchCreatedAt((r['dispatch_id'] as Buffer).toString('hex'));
          if (created === undefined || created + life.gc.dispatchDedupeMs > now) n++;
        }
        return n;
      case 'message_record':
        for await (const r of inspect.rows(`SELECT record FROM ${ks}.message_record`)) {
          const rec = decodeMessageRecord(r['record'] as Buffer);
          if (rec.retention.kind !== 'ephemeral' || rec.createdAt + BigInt(rec.retention.ttlSeconds) * 1000n > now) n++;
        }
        return n;
      case 'message_commit':
      case 'commit_recovery_v2':
        for await (const r of inspect.rows(`SELECT created_at, TTL(created_at) AS ttl FROM ${ks}.${name}`)) {
          if (r['ttl'] === null || r['created_at'] === null || big(r['created_at']) + life.commitAuxTtlMs > now) n++;
        }
        return n;
      case 'mailbox_retention_bucket_v3': {
        // no TTL: a ledger item refers to it (held); a TTL: released — the server drops it the release
        // TTL after the release, which happened on the simulated clock no later than the census that
        // first saw it (so this counts it at most one census interval too long, never too short)
        const seen = new Set<string>();
        for await (const r of inspect.rows(`SELECT tenant_id, user_id, epoch, day, TTL(max_seq) AS ttl FROM ${ks}.mailbox_retention_bucket_v3`)) {
          if (r['ttl'] === null) {
            n++;
            continue;
          }
          const key = `${(r['tenant_id'] as Buffer).toString('hex')}:${(r['user_id'] as Buffer).toString('hex')}:${String(r['epoch'])}:${String(r['day'])}`;
          seen.add(key);
          const first = releasedSeen.get(key) ?? now;
          releasedSeen.set(key, first);
          if (first + life.releasedProofTtlMs > now) n++;
        }
        for (const k of [...releasedSeen.keys()]) if (!seen.has(k)) releasedSeen.delete(k);
        return n;
      }
      default:
        return inspect.count(name);
    }
  };
  return {
    kind: 'scylla',
    messages: stores.messages,
    where: stores.where,
    storeFor: mailbox.storeFor,
    restartMailboxStores: mailbox.restartMailboxStores,
    census: async (now) => {
      const counts: Record<string, number> = {};
      for (const name of inspect.tables) counts[name] = await held(name, now);
      return counts;
    },
    close: async () => {
      await mailbox.closeAll().catch(() => undefined);
      await stores.close();
    },
  };
}
