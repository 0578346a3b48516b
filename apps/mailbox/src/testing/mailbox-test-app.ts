import type { ConsumedPage } from '@qim/bus';
import type { DispatchRecord, Id128, MailboxStore, MessageRecord } from '@qim/store-core';
import { encodeDispatchRecord } from '@qim/store-core';
import { ManualClock } from '@qim/store-core/testing';
import { memoryMailboxBackend } from '@qim/backends';
import type { ReadBudget } from '@qim/service-kit';
import { FrontierBoard, MailboxMetrics, MailboxReader, ShardStatusReader, ShardWorker, dispatchRecordsOf } from '@qim/mailbox-runtime';
import type { ReadinessCheck } from '@qim/service-kit';

import fastify from 'fastify';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { mailboxApp } from '../app';

export const TOKEN = 'test-token-0123456789abcdef';
export const hex = (n: number): Id128 => n.toString(16).padStart(32, '0') as Id128;
export const SHARDS = 2;
export const EPOCH = 3;
export const SYNC_MAX_WAIT_MS = 5_000;
export const SYNC_STREAM_MAX_MS = 20_000;

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

export interface MailboxTestApp {
  readonly app: FastifyInstance;
  readonly metrics: MailboxMetrics;
  readonly clock: ManualClock;
  readonly board: FrontierBoard;
  readonly storeFor: (shard: number) => Promise<MailboxStore>;
  /** Range scans the reader has sent to the stores so far. */
  scans(): number;
  /** Makes the reader's range scans wait (as a slow store would) until the returned release is called. */
  holdScans(): () => void;
  /**
   * Dispatches a message to its recipients as the router + shard consumer would: one page per shard
   * at the next offsets of its partition, applied by the real `ShardWorker`.
   */
  deliver(record: MessageRecord, recipients: readonly Id128[]): Promise<DispatchRecord[]>;
  /** The same dispatch applied straight to the store, as a worker in another process would (no in-process wake-up). */
  applyElsewhere(record: MessageRecord, recipients: readonly Id128[]): Promise<DispatchRecord[]>;
}

/** The mailbox plugin over Memory stores, with the shard worker owning every shard of this process. */
export async function mailboxTestApp(
  opts: {
    readiness?: ReadinessCheck[];
    ownShards?: boolean;
    pollMs?: number;
    /** The reader's `repeatHoldMs` (QIM_SYNC_REPEAT_HOLD_MS); 0 unless given. */
    repeatHoldMs?: number;
    /** receives every route the app registers */ routes?: RouteOptions[];
    /** The reader's read budget (QIM_READ_BUDGET_BYTES); none unless given. */
    readBudget?: ReadBudget;
    /** QIM_SYNC_MAX_WAIT_MS (default SYNC_MAX_WAIT_MS). */
    syncMaxWaitMs?: number;
    /** QIM_SYNC_STREAM_MAX_MS (default SYNC_STREAM_MAX_MS). */
    syncStreamMaxMs?: number;
  } = {},
): Promise<MailboxTestApp> {
  const clock = new ManualClock(1_700_000_000_000n);
  const metrics = new MailboxMetrics(false);
  const backend = memoryMailboxBackend({ epoch: EPOCH, gc: { entryRetentionMs: 86_400_000n, dispatchDedupeMs: 8n * 86_400_000n }, applyConcurrency: 4 }, clock);
  const storeFor = (shard: number): Promise<MailboxStore> => backend.storeFor(shard);
  const board = new FrontierBoard();
  let scans = 0;
  let held: Promise<void> | null = null;
  const counted = new Map<number, MailboxStore>();
  // The reader's view of the stores: the same stores, each range scan counted.
  const readerStoreFor = async (shard: number): Promise<MailboxStore> => {
    let s = counted.get(shard);
    if (s === undefined) {
      const store = await storeFor(shard);
      s = new Proxy(store, {
        get(target, key) {
          if (key === 'rangeScan')
            return async (...args: Parameters<MailboxStore['rangeScan']>) => {
              scans += 1;
              if (held) await held;
              return target.rangeScan(...args);
            };
          const v: unknown = Reflect.get(target, key);
          return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
        },
      });
      counted.set(shard, s);
    }
    return s;
  };
  const worker = new ShardWorker({ storeFor, board, metrics, log: silent, now: () => Number(clock.nowMs()) });
  if (opts.ownShards ?? true) await worker.onAssigned(Array.from({ length: SHARDS }, (_, s) => s));
  const offsets = new Map<number, bigint>();
  const nextOffset = (shard: number): bigint => {
    const o = offsets.get(shard) ?? 0n;
    offsets.set(shard, o + 1n);
    return o;
  };
  const app = fastify({ logger: false });
  if (opts.routes) app.addHook('onRoute', (r) => void opts.routes!.push(r));
  await app.register(mailboxApp, {
    serviceTokens: [TOKEN],
    reader: new MailboxReader({
      storeFor: readerStoreFor,
      shardCount: SHARDS,
      epoch: EPOCH,
      board,
      pollMs: opts.pollMs,
      repeatHoldMs: opts.repeatHoldMs ?? 0,
      onScan: (result) => metrics.syncScans.inc({ result }),
      onWokenRead: () => metrics.syncWokenStoreCalls.inc(),
      onHold: () => metrics.syncHeld.inc(),
      readBudget: opts.readBudget,
    }),
    status: new ShardStatusReader({
      storeFor,
      worker,
      offsets: null,
      retrying: () => new Map(),
      config: { shards: SHARDS, epoch: EPOCH, shardGroup: 'shards', dispatchTopic: 'dispatch' },
    }),
    syncMaxLimit: 50,
    syncMaxWaitMs: opts.syncMaxWaitMs ?? SYNC_MAX_WAIT_MS,
    syncStreamMaxMs: opts.syncStreamMaxMs ?? SYNC_STREAM_MAX_MS,
    metrics,
    readiness: opts.readiness ?? [{ name: 'shards', check: () => worker.readiness() }],
  });
  await app.ready();
  return {
    app,
    metrics,
    clock,
    board,
    storeFor,
    scans: () => scans,
    holdScans() {
      let release = (): void => undefined;
      held = new Promise((r) => (release = r));
      return () => {
        held = null;
        release();
      };
    },
    async deliver(record, recipients) {
      const dispatches = dispatchRecordsOf({ record, recipients }, SHARDS);
      for (const d of dispatches) {
        const offset = nextOffset(d.shard);
        const page: ConsumedPage = {
          topic: 'dispatch',
          partition: d.shard,
          fromOffset: offset,
          toOffset: offset,
          records: [{ topic: 'dispatch', partition: d.shard, offset, key: null, value: encodeDispatchRecord(d) }],
        };
        await worker.handlePage(page);
      }
      return dispatches;
    },
    async applyElsewhere(record, recipients) {
      const dispatches = dispatchRecordsOf({ record, recipients }, SHARDS);
      for (const d of dispatches) {
        const offset = nextOffset(d.shard);
        await (await storeFor(d.shard)).applyPage({ fromOffset: offset, toOffset: offset, records: [{ offset, record: d }] });
      }
      return dispatches;
    },
  };
}

export const headers = (tenant: Id128, user: Id128, token = TOKEN): Record<string, string> => ({
  authorization: `Bearer ${token}`,
  'x-qim-tenant': tenant,
  'x-qim-user': user,
});
