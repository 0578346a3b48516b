import { randomBytes } from 'node:crypto';
import type { DispatchRecord, Id128, MailboxStore, MessageRecord } from '@qim/store-core';
import { memoryMailboxBackend, openMailboxBackend } from '@qim/backends';
import type { MailboxBackend } from '@qim/backends';
import { FrontierBoard } from './frontier-board';
import { MailboxReader } from './mailbox-reader';
import type { SyncPage } from './mailbox-reader';
import { dispatchRecordsOf } from './router-plan';

jest.setTimeout(60_000);

const EPOCH = 3;
const WAITERS = 1_000;
const POLL_MS = 100;
const newId = (): Id128 => randomBytes(16).toString('hex') as Id128;

function message(tenantId: Id128, seq: bigint): MessageRecord {
  return {
    tenantId,
    conversationId: newId(),
    seq,
    messageId: newId(),
    senderId: newId(),
    clientMessageId: newId(),
    kind: 'normal',
    control: false,
    contentType: 'text/plain',
    body: Buffer.from(`m${seq}`),
    createdAt: BigInt(Date.now()),
    retention: { kind: 'default' },
  };
}
const dispatchTo = (tenantId: Id128, user: Id128, seq: bigint): DispatchRecord =>
  dispatchRecordsOf({ record: message(tenantId, seq), recipients: [user] }, 1)[0]!;

/** A real store whose reads are counted (the store itself answers; nothing is faked). */
function counted(store: MailboxStore, reads: { n: number }): MailboxStore {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if ((prop === 'frontier' || prop === 'rangeScan') && typeof v === 'function') {
        return (...args: unknown[]) => {
          reads.n += 1;
          return (v as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return v;
    },
  });
}

const until = async (what: string, ok: () => boolean, ms = 5_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

/**
 * Issue 28 item 8: long polls on a shard this process does not own share one frontier read per
 * (shard, interval) instead of each waiter reading the store every `pollMs`; a new entry still
 * reaches its waiter, and the other waiters keep waiting with their cursors intact.
 */
function describeLongPollReads(name: string, open: () => Promise<MailboxBackend>): void {
  describe(`long polls on a non-owned shard (${name})`, () => {
    let backend: MailboxBackend;
    beforeAll(async () => {
      backend = await open();
    });
    afterAll(async () => {
      await backend?.close();
    });

    it(`${WAITERS} idle waiters cost about one store read per poll interval, and an entry still reaches its waiter`, async () => {
      const reads = { n: 0 };
      const store = counted(await backend.storeFor(0), reads);
      const board = new FrontierBoard();
      const reader = new MailboxReader({ storeFor: async () => store, shardCount: 1, epoch: EPOCH, board, pollMs: POLL_MS });
      const tenantId = newId();
      const users = Array.from({ length: WAITERS }, () => newId());
      const cursors: bigint[] = [];
      for (let i = 0; i < WAITERS; i += 50) {
        const batch = users.slice(i, i + 50);
        const pages = await Promise.all(
          batch.map((u) => reader.sync({ tenantId, actingUser: u, userId: u, after: null, limit: 10, maxBytes: 1 << 20, waitMs: 0 })),
        );
        cursors.push(...pages.map((p) => p.nextAfter));
      }
      const answers = new Map<Id128, SyncPage>();
      const leave = new AbortController();
      const polls = users.map((u, i) =>
        reader
          .sync({ tenantId, actingUser: u, userId: u, after: cursors[i]!, limit: 10, maxBytes: 1 << 20, waitMs: 60_000, signal: leave.signal })
          .then((p) => {
            answers.set(u, p);
            return p;
          }),
      );
      try {
        await checkWaits();
      } finally {
        leave.abort();
        await Promise.allSettled(polls); // never close the store under a pending sync, even when an expectation failed
      }
      async function checkWaits(): Promise<void> {
        await until('every waiter waiting', () => board.waiterCount(0) === WAITERS, 30_000);
        reads.n = 0;
        const idleMs = 1_000;
        await new Promise((r) => setTimeout(r, idleMs));
        const idleReads = reads.n;
        // One read per interval for the shard (a few more for timer slack), not one per waiter per interval.
        expect(idleReads).toBeLessThanOrEqual(Math.ceil(idleMs / POLL_MS) + 3);
        expect(answers.size).toBe(0);

        // Another process applies an entry for one waiter: it is answered after the next poll and the spread wake-ups.
        const target = users[WAITERS - 1]!;
        const { offset: frontier } = await store.frontier();
        const offset = frontier === null ? 0n : frontier + 1n;
        await store.applyPage({ fromOffset: offset, toOffset: offset, records: [{ offset, record: dispatchTo(tenantId, target, 1n) }] });
        const applied = Date.now();
        await until('the entry reaches its waiter', () => answers.has(target), 20_000);
        // Woken, not timed out (the wait is 60 s): after one poll and the other 999 waiters' scans, which on a loaded machine take seconds.
        expect(Date.now() - applied).toBeLessThan(20_000);
        expect(answers.get(target)!.entries).toHaveLength(1);
        expect(answers.get(target)!.entries[0]!.mailboxSeq > cursors[WAITERS - 1]!).toBe(true);

        // The devices leave: every other waiter's page is empty, its cursor kept or moved to proven-empty ground.
        leave.abort();
        const pages = await Promise.all(polls);
        pages.forEach((p, i) => {
          if (users[i] === target) return;
          expect(p.entries).toEqual([]);
          expect(p.nextAfter >= cursors[i]!).toBe(true);
        });
      }
    });
  });
}

const redisUrl = (): string => {
  const url = process.env['QIM_REDIS_URL'];
  if (!url) throw new Error('QIM_REDIS_URL is not set (eval "$(tools/infra/infra env)"); this spec never skips');
  return url;
};
const binding = { epoch: EPOCH, gc: { entryRetentionMs: 86_400_000n, dispatchDedupeMs: 86_400_000n }, applyConcurrency: 4 };

describeLongPollReads('memory', async () => memoryMailboxBackend(binding));
describeLongPollReads('redis', async () =>
  openMailboxBackend({ kind: 'redis', redisUrl: redisUrl(), namespace: `lp${process.pid}${randomBytes(3).toString('hex')}` }, 'test', binding, () => undefined),
);
