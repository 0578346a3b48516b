import { rmSync } from 'node:fs';
import { FrontierGapError, composeMailboxSeq, epochStartSeq } from '@qim/store-core';
import { ManualClock } from '@qim/store-core/testing';
import type { DispatchRecord, Id128 } from '@qim/store-core';
import { Redis } from 'ioredis';
import { RedisKeys } from '../keys/redis-keys';
import type { MailboxFaults } from '../mailbox/redis-mailbox-faults';
import { RedisMailboxStore } from '../mailbox/redis-mailbox-store';
import { SPEC_GC, pageOf, rid } from '../testing/redis-mailbox-fixture';
import { RedisServerProcess } from '../testing/redis-server-process';

/** A client that notices a dead server quickly and reconnects on its own once it is back. */
function client(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: 1, retryStrategy: (n) => Math.min(n * 50, 500), enableAutoPipelining: true });
}

/**
 * Issue 27 item 3: a Redis that lost acknowledged writes — a restart under `appendfsync everysec`,
 * a restored backup, a promoted replica, or keys removed behind the store. Whatever was lost, the
 * frontier must never cross a hole: every cursor read up to the frontier is complete, or expired,
 * never short. A restored backup is made real here: the data directory of a server of this spec
 * is copied, and the server is killed and started again from that copy in the middle of a page
 * (fault point `beforeFrontierWrite`).
 */
describe('RedisMailboxStore after lost writes', () => {
  let server: RedisServerProcess;
  const opened: { close(): Promise<void> }[] = [];
  const backups: string[] = [];
  beforeAll(async () => {
    server = await RedisServerProcess.start(['--appendonly', 'yes', '--appendfsync', 'always']);
  }, 20_000);
  afterEach(async () => {
    for (const o of opened.splice(0).reverse()) await o.close();
    for (const b of backups.splice(0)) rmSync(b, { recursive: true, force: true });
  });
  afterAll(async () => {
    await server.stop();
  });

  const shardEpoch = { shard: 3, epoch: 5 };
  const seq = (offset: bigint): bigint => composeMailboxSeq(shardEpoch.epoch, offset);
  const tenantId = rid();

  function world(faults?: MailboxFaults): { store: RedisMailboxStore; admin: Redis; namespace: string; clock: ManualClock } {
    const redis = client(server.url);
    const admin = client(server.url);
    const namespace = `lost-${rid().slice(0, 8)}`;
    const clock = new ManualClock(BigInt(Date.now()));
    const store = new RedisMailboxStore({ redis, namespace, clock, shardEpoch, gc: SPEC_GC, faults, ownsConnection: true });
    opened.push(store, { close: async () => void admin.disconnect() });
    return { store, admin, namespace, clock };
  }
  const record = (clock: ManualClock, recipients: readonly Id128[]): DispatchRecord => ({
    dispatchId: rid(),
    tenantId,
    shard: shardEpoch.shard,
    messageId: rid(),
    conversationId: rid(),
    seq: 1n,
    createdAt: clock.nowMs(),
    recipients: [...recipients].sort(),
    events: [{ ordinal: 0, eventId: rid(), payload: Buffer.from('hello') }],
  });
  /** What a device syncing from the start of the epoch reads: every entry up to the frontier. */
  async function visible(store: RedisMailboxStore, user: Id128): Promise<bigint[]> {
    const { offset } = await store.frontier();
    if (offset === null) return [];
    return (await store.rangeScan(tenantId, user, epochStartSeq(shardEpoch.epoch), seq(offset), 100)).entries.map((e) => e.mailboxSeq);
  }

  it(
    'a server restored from a backup between the entries and the frontier write: the page fails, the frontier stays; ' + 'applied again, every entry is there',
    async () => {
      let restoreFrom: string | null = null;
      const faults: MailboxFaults = {
        beforeFrontierWrite: async () => {
          if (restoreFrom === null) return;
          const from = restoreFrom;
          restoreFrom = null;
          await server.restore(from);
        },
      };
      const { store, clock } = world(faults);
      const u = rid();
      await store.applyPage(pageOf(0n, 0n, [[0n, record(clock, [u])]]));
      const backup = server.backup();
      backups.push(backup);
      restoreFrom = backup;
      const page1 = pageOf(1n, 1n, [[1n, record(clock, [u])]]);
      await expect(store.applyPage(page1)).rejects.toThrow(/restarted|run id/);
      expect(await store.frontier()).toEqual({ offset: 0n });
      expect(await visible(store, u)).toEqual([seq(0n)]);
      await store.applyPage(page1);
      expect(await visible(store, u)).toEqual([seq(0n), seq(1n)]);
    },
    60_000,
  );

  it('the frontier and the page’s keys removed behind the store mid-page: the frontier never jumps the hole, on this attempt or the next', async () => {
    let removeUser: Id128 | null = null;
    let env: { admin: Redis; namespace: string } | null = null;
    const faults: MailboxFaults = {
      beforeFrontierWrite: async () => {
        if (removeUser === null || env === null) return;
        const k = new RedisKeys(env.namespace);
        const keys = await env.admin.keys(`${env.namespace}:*`);
        const user = k.user(tenantId, removeUser);
        await env.admin.del(...keys.filter((key) => key.startsWith(user.prefix) || key === k.shardFrontier(shardEpoch.shard, shardEpoch.epoch).frontier));
        removeUser = null;
      },
    };
    const w = world(faults);
    env = w;
    const u = rid();
    await w.store.applyPage(pageOf(0n, 0n, [[0n, record(w.clock, [u])]]));
    removeUser = u;
    const page1 = pageOf(1n, 1n, [[1n, record(w.clock, [u])]]);
    await expect(w.store.applyPage(page1)).rejects.toThrow(FrontierGapError);
    await expect(w.store.applyPage(page1)).rejects.toThrow(FrontierGapError);
    expect(await w.store.frontier()).toEqual({ offset: null });
    expect(await visible(w.store, u)).toEqual([]);
  }, 60_000);

  it(
    'a warm user whose keys were removed behind the store (meta included): ' +
      'its group goes through the script before the frontier moves, so the new entry is read',
    async () => {
      const w = world();
      const u = rid();
      await w.store.applyPage(pageOf(0n, 0n, [[0n, record(w.clock, [u])]]));
      await w.store.applyPage(pageOf(1n, 1n, [[1n, record(w.clock, [u])]]));
      const user = new RedisKeys(w.namespace).user(tenantId, u);
      const keys = (await w.admin.keys(`${w.namespace}:*`)).filter((key) => key.startsWith(user.prefix));
      expect(keys).toContain(user.meta);
      await w.admin.del(...keys);
      await w.store.applyPage(pageOf(2n, 2n, [[2n, record(w.clock, [u])]]));
      // a device that had read through offset 1 must get the entry at 2 (the keys of 0 and 1 were removed by hand)
      const page = await w.store.rangeScan(tenantId, u, seq(1n), seq((await w.store.frontier()).offset!), 100);
      expect(page.entries.map((e) => e.mailboxSeq)).toEqual([seq(2n)]);
      expect(await w.admin.exists(user.meta)).toBe(1);
    },
    60_000,
  );

  it(
    'a restart under appendfsync everysec in the middle of a warm user’s page (kill -9, AOF replayed): ' +
      'the page fails, the frontier stays, applied again every entry is there',
    async () => {
      const everysec = await RedisServerProcess.start(['--appendonly', 'yes', '--appendfsync', 'everysec']);
      opened.push({ close: () => everysec.stop() });
      let restart = false;
      const redis = client(everysec.url);
      const clock = new ManualClock(BigInt(Date.now()));
      const store = new RedisMailboxStore({
        redis,
        namespace: 'restart',
        clock,
        shardEpoch,
        gc: SPEC_GC,
        ownsConnection: true,
        faults: {
          beforeFrontierWrite: async () => {
            if (!restart) return;
            restart = false;
            await everysec.restart();
          },
        },
      });
      opened.push(store);
      const u = rid();
      await store.applyPage(pageOf(0n, 0n, [[0n, record(clock, [u])]]));
      await store.applyPage(pageOf(1n, 1n, [[1n, record(clock, [u])]]));
      restart = true;
      const page2 = pageOf(2n, 2n, [[2n, record(clock, [u])]]);
      await expect(store.applyPage(page2)).rejects.toThrow(/restarted/);
      expect(await store.frontier()).toEqual({ offset: 1n });
      await store.applyPage(page2);
      expect(await visible(store, u)).toEqual([seq(0n), seq(1n), seq(2n)]);
    },
    60_000,
  );
});
