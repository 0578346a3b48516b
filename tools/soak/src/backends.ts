import type { Clock, MailboxGcConfig, MailboxStore, MessageStore } from '@qim/store-core';
import { decodeMailboxEntry, decodeMessageRecord } from '@qim/store-core';
import { MemoryMailboxBackend, MemoryMailboxStore, MemoryMessageBackend, MemoryMessageStore } from '@qim/store-memory';
import { RedisMailboxStore, RedisMessageStore, connectRedis } from '@qim/store-redis';
import type { ScyllaSession } from '@qim/store-scylla';
import { ALL_TABLES, ScyllaMailboxStore, ScyllaMessageStore, connectSession, migrate, developmentScyllaConfig } from '@qim/store-scylla';

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

export function openMemory(clock: Clock, life: StoreLifetimes): SoakBackend {
  const msg = new MemoryMessageBackend();
  const mbx = new MemoryMailboxBackend();
  const messages = new MemoryMessageStore({ clock, backend: msg, commitAuxTtlMs: life.commitAuxTtlMs });
  const stores = new Map<string, MemoryMailboxStore>();
  return {
    kind: 'memory',
    messages,
    where: 'in-process maps',
    storeFor: async (shard, epoch, gc = life.gc) => {
      const key = `${shard}:${epoch}:${gc.entryRetentionMs}:${gc.dispatchDedupeMs}`;
      let s = stores.get(key);
      if (!s) stores.set(key, (s = new MemoryMailboxStore({ shardEpoch: { shard, epoch }, gc, clock, backend: mbx, releasedProofTtlMs: life.releasedProofTtlMs })));
      return s;
    },
    restartMailboxStores: async () => {
      for (const s of stores.values()) await s.close();
      stores.clear();
    },
    census: async () => ({ ...msg.census(), ...mbx.census() }),
    close: async () => {
      await messages.close();
      for (const s of stores.values()) await s.close();
    },
  };
}

export async function openRedis(url: string, namespace: string, clock: Clock, life: StoreLifetimes, keep: boolean): Promise<SoakBackend> {
  const redis = await connectRedis(url);
  const admin = await connectRedis(url);
  const common = { redis, namespace, clock, ownsConnection: false, physicalGraceMs: life.physicalGraceMs };
  const messages = new RedisMessageStore({ ...common, commitAuxTtlMs: life.commitAuxTtlMs });
  const stores = new Map<string, RedisMailboxStore>();
  /** The mailbox's keys (shard frontiers and dispatch index, users' mailboxes) — what lostWrites rolls back. */
  const mailboxKey = (k: string): boolean => k.startsWith(`${namespace}:{mb:`) || k.startsWith(`${namespace}:{sf:`);
  let snapshot: { key: string; dump: Buffer; at: number }[] | null = null;
  const scanAll = async (): Promise<string[]> => {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await admin.scan(cursor, 'MATCH', `${namespace}:*`, 'COUNT', 1000);
      cursor = next;
      keys.push(...batch);
    } while (cursor !== '0');
    return keys;
  };
  return {
    kind: 'redis',
    messages,
    where: `${url} namespace ${namespace}`,
    storeFor: async (shard, epoch, gc = life.gc) => {
      const key = `${shard}:${epoch}:${gc.entryRetentionMs}:${gc.dispatchDedupeMs}`;
      let s = stores.get(key);
      if (!s) stores.set(key, (s = new RedisMailboxStore({ ...common, shardEpoch: { shard, epoch }, gc })));
      return s;
    },
    restartMailboxStores: async () => {
      for (const s of stores.values()) await s.close();
      stores.clear();
    },
    lostWrites: {
      snapshot: async () => {
        snapshot = [];
        for (const k of (await scanAll()).filter(mailboxKey)) {
          const [dump, at] = await Promise.all([admin.dumpBuffer(k), admin.pexpiretime(k)]);
          if (dump !== null) snapshot.push({ key: k, dump, at: Number(at) });
        }
        return snapshot.length;
      },
      restore: async (keepFrontiers = false) => {
        if (snapshot === null) throw new Error('soak: lost writes restored without a snapshot');
        const frontier = (k: string): boolean => k.includes(':mbd-frontier:');
        const now = (await scanAll()).filter((k) => mailboxKey(k) && !(keepFrontiers && frontier(k)));
        snapshot = snapshot.filter((x) => !(keepFrontiers && frontier(x.key)));
        for (let i = 0; i < now.length; i += 500) await admin.del(...now.slice(i, i + 500));
        for (const { key, dump, at } of snapshot) {
          if (at > 0) await admin.call('RESTORE', key, String(at), dump, 'ABSTTL', 'REPLACE');
          else await admin.call('RESTORE', key, '0', dump, 'REPLACE');
        }
        const n = snapshot.length;
        snapshot = null;
        return n;
      },
    },
    census: async (nowMs) => {
      const counts: Record<string, number> = {};
      const keys = await scanAll();
      // one pipeline: type, absolute physical expiry (ms; -1 none) and size of each key
      const p = admin.pipeline();
      for (const k of keys) p.type(k).pexpiretime(k);
      const replies = (await p.exec()) ?? [];
      const size = admin.pipeline();
      const types: string[] = [];
      const held: boolean[] = [];
      keys.forEach((k, i) => {
        const type = String(replies[2 * i]?.[1] ?? 'none');
        const at = Number(replies[2 * i + 1]?.[1] ?? -2);
        types.push(type);
        // a key whose physical expiry passed on the simulated clock is gone for a server living then
        held.push(type !== 'none' && (at === -1 || BigInt(at) > nowMs));
        if (type === 'zset') size.zcard(k);
        else if (type === 'hash') size.hlen(k);
        else if (type === 'set') size.scard(k);
        else size.exists(k);
      });
      const sizes = (await size.exec()) ?? [];
      keys.forEach((k, i) => {
        if (!held[i]) return;
        const s = redisStructureOf(namespace, k);
        counts[`${s} keys`] = (counts[`${s} keys`] ?? 0) + 1;
        if (types[i] === 'zset' || types[i] === 'hash' || types[i] === 'set') counts[`${s} members`] = (counts[`${s} members`] ?? 0) + Number(sizes[i]?.[1] ?? 0);
      });
      return counts;
    },
    close: async () => {
      await messages.close();
      for (const s of stores.values()) await s.close();
      if (!keep) {
        const keys = await scanAll();
        for (let i = 0; i < keys.length; i += 500) await admin.del(...keys.slice(i, i + 500));
      }
      await redis.quit().catch(() => redis.disconnect());
      await admin.quit().catch(() => admin.disconnect());
    },
  };
}

export interface ScyllaTarget {
  readonly contactPoint: string;
  readonly dataCenter: string;
  readonly keyspace: string;
}

/** Drops the soak keyspace (only names starting `qim_soak_`). */
async function dropKeyspace(session: ScyllaSession, keyspace: string): Promise<void> {
  if (!keyspace.startsWith('qim_soak_')) throw new Error(`refusing to drop keyspace ${keyspace}`);
  await session.client.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`);
}

/** Rows of `table` (all columns named), paged. */
async function* rowsOf(session: ScyllaSession, cql: string): AsyncGenerator<Record<string, unknown>> {
  let pageState: string | undefined;
  do {
    const rs = await session.client.execute(cql, [], { fetchSize: 2000, pageState, readTimeout: 60_000 });
    for (const r of rs.rows) yield r as unknown as Record<string, unknown>;
    pageState = rs.pageState ?? undefined;
  } while (pageState);
}

const big = (v: unknown): bigint => BigInt(String(v));

export async function openScylla(
  t: ScyllaTarget,
  clock: Clock,
  life: StoreLifetimes,
  dispatchCreatedAt: (dispatchId: string) => bigint | undefined,
  keep: boolean,
): Promise<SoakBackend> {
  const config = developmentScyllaConfig({ contactPoints: [t.contactPoint], keyspace: t.keyspace, localDataCenter: t.dataCenter, replicationFactor: 1 });
  const session = await connectSession(config);
  await dropKeyspace(session, t.keyspace);
  await migrate(session, ALL_TABLES);
  const messages = new ScyllaMessageStore(session, { clock, commitAuxTtlMs: life.commitAuxTtlMs });
  const stores = new Map<string, ScyllaMailboxStore>();
  const ks = t.keyspace;
  const tables = ALL_TABLES.map((x) => x.name);
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
        for await (const r of rowsOf(session, `SELECT entry FROM ${ks}.mailbox_entry`)) if (decodeMailboxEntry(r['entry'] as Buffer).expiresAt > now) n++;
        return n;
      case 'dispatch_index':
        for await (const r of rowsOf(session, `SELECT dispatch_id FROM ${ks}.dispatch_index`)) {
          const created = dispatchCreatedAt((r['dispatch_id'] as Buffer).toString('hex'));
          if (created === undefined || created + life.gc.dispatchDedupeMs > now) n++;
        }
        return n;
      case 'message_record':
        for await (const r of rowsOf(session, `SELECT record FROM ${ks}.message_record`)) {
          const rec = decodeMessageRecord(r['record'] as Buffer);
          if (rec.retention.kind !== 'ephemeral' || rec.createdAt + BigInt(rec.retention.ttlSeconds) * 1000n > now) n++;
        }
        return n;
      case 'message_commit':
      case 'commit_recovery_v2':
        for await (const r of rowsOf(session, `SELECT created_at, TTL(created_at) AS ttl FROM ${ks}.${name}`)) {
          if (r['ttl'] === null || r['created_at'] === null || big(r['created_at']) + life.commitAuxTtlMs > now) n++;
        }
        return n;
      case 'mailbox_retention_bucket_v3': {
        // no TTL: a ledger item refers to it (held); a TTL: released — the server drops it the release
        // TTL after the release, which happened on the simulated clock no later than the census that
        // first saw it (so this counts it at most one census interval too long, never too short)
        const seen = new Set<string>();
        for await (const r of rowsOf(session, `SELECT tenant_id, user_id, epoch, day, TTL(max_seq) AS ttl FROM ${ks}.mailbox_retention_bucket_v3`)) {
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
      default: {
        const rs = await session.client.execute(`SELECT COUNT(*) AS n FROM ${ks}.${name}`, [], { readTimeout: 60_000 });
        return Number(String(rs.first()?.['n'] ?? 0));
      }
    }
  };
  return {
    kind: 'scylla',
    messages,
    where: `${t.contactPoint} keyspace ${ks}`,
    storeFor: async (shard, epoch, gc = life.gc) => {
      const key = `${shard}:${epoch}:${gc.entryRetentionMs}:${gc.dispatchDedupeMs}`;
      let s = stores.get(key);
      if (!s) stores.set(key, (s = new ScyllaMailboxStore({ session, shardEpoch: { shard, epoch }, gc, clock, releasedProofTtlSeconds: Number(life.releasedProofTtlMs / 1000n) })));
      return s;
    },
    restartMailboxStores: async () => {
      for (const s of stores.values()) await s.close();
      stores.clear();
    },
    census: async (now) => {
      const counts: Record<string, number> = {};
      for (const name of tables) counts[name] = await held(name, now);
      return counts;
    },
    close: async () => {
      for (const s of stores.values()) await s.close().catch(() => undefined);
      if (!keep) await dropKeyspace(session, ks).catch(() => undefined);
      await session.close().catch(() => undefined);
    },
  };
}
