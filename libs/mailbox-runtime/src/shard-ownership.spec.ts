import type { ConsumedRecord } from '@qim/bus';
import { PartitionConsumer } from '@qim/bus';
import type { DispatchRecord, Id128, MailboxStore, MessageRecord } from '@qim/store-core';
import { encodeDispatchRecord } from '@qim/store-core';
import { ManualClock } from '@qim/store-core/testing';
import { memoryMailboxBackend } from '@qim/backends';
import { FrontierBoard } from './frontier-board';
import { MailboxMetrics } from './mailbox-metrics';
import { MailboxReader } from './mailbox-reader';
import { dispatchRecordsOf } from './router-plan';
import { ShardWorker } from './shard-worker';
import { specMessage } from './testing/spec-message';

const hex = (n: number) => n.toString(16).padStart(32, '0') as Id128;
const T = hex(0xa1);
const alice = hex(1);
const EPOCH = 2;
const clock = new ManualClock(1_700_000_000_000n);

const message = (seq: bigint): MessageRecord => specMessage(T, alice, seq, clock.nowMs());
const dispatch = (seq: bigint): DispatchRecord => dispatchRecordsOf({ record: message(seq), recipients: [alice] }, 1)[0]!;
const rec = (offset: bigint, d: DispatchRecord): ConsumedRecord => ({ topic: 'd', partition: 0, offset, key: null, value: encodeDispatchRecord(d) });

/** A long poll's wait: far longer than any step of the tests, so that only a wake-up answers before it ends. */
const WAIT_MS = 20_000;

/** Resolves once a sync waits on `shard` (the board lists it), checking at each turn of the event loop. */
async function waiting(board: FrontierBoard, shard: number): Promise<void> {
  while (board.waiterCount(shard) === 0) await new Promise((r) => setImmediate(r));
}

const EVENTS = { GROUP_JOIN: 'group_join', CRASH: 'crash', STOP: 'stop', REBALANCING: 'rebalancing', REQUEST: 'request' } as const;

/** The kafkajs consumer's event surface, driven by the test (the events kafkajs emits on a join, a crash, a stop). */
class DrivenConsumer {
  readonly events = EVENTS;
  private readonly listeners = new Map<string, ((e: unknown) => void)[]>();
  on(event: string, listener: (e: unknown) => void): void {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
  }
  emit(event: string, payload: object): void {
    for (const l of this.listeners.get(event) ?? []) l({ payload });
  }
}

async function setup() {
  const backend = memoryMailboxBackend({ epoch: EPOCH, gc: { entryRetentionMs: 86_400_000n, dispatchDedupeMs: 8n * 86_400_000n }, applyConcurrency: 1 }, clock);
  const store: MailboxStore = await backend.storeFor(0);
  const board = new FrontierBoard();
  const log = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const worker = new ShardWorker({ storeFor: async () => store, board, metrics: new MailboxMetrics(false), log, now: () => Number(clock.nowMs()) });
  const driven = new DrivenConsumer();
  const kafka = { consumer: () => driven } as unknown as ConstructorParameters<typeof PartitionConsumer>[0];
  const consumer = new PartitionConsumer(kafka, worker, { groupId: 'g', topic: 'd', concurrency: 1, pageRecords: 10 });
  const scans: string[] = [];
  const reader = new MailboxReader({ storeFor: async () => store, shardCount: 1, epoch: EPOCH, board, onScan: (r) => scans.push(r) });
  const join = async (partitions: number[]): Promise<void> => {
    driven.emit(EVENTS.GROUP_JOIN, { memberAssignment: { d: partitions } });
    await worker.onAssigned(partitions); // the same check the join started, awaited here
  };
  return { store, board, worker, driven, consumer, reader, scans, join };
}

/**
 * Issue 28 item 6: a process whose shard consumer crashed (or stopped, or is rebalancing) no longer
 * applies its shards, so it must stop answering syncs from its in-memory frontier (which another
 * process is now moving on) and read the store until a join gives it the shard again.
 */
describe('shard ownership follows the consumer (crash, stop, rebalance)', () => {
  it('a crashed consumer releases its shards at once: a sync then reads the store and sees what another process applied', async () => {
    const { store, board, worker, driven, consumer, reader, scans, join } = await setup();
    await join([0]);
    await worker.handlePage({ topic: 'd', partition: 0, fromOffset: 0n, toOffset: 0n, records: [rec(0n, dispatch(1n))] });
    expect(board.owns(0)).toBe(true);
    const first = await reader.sync({ tenantId: T, actingUser: alice, userId: alice, after: null, limit: 10, maxBytes: 1 << 20, waitMs: 0 });
    expect(first.entries).toHaveLength(1);

    driven.emit(EVENTS.CRASH, { error: new Error('The coordinator is not aware of this member'), restart: true });
    expect(consumer.assignment()).toEqual([]);
    expect(board.owns(0)).toBe(false);
    expect(board.known(0)).toBeUndefined();

    // Another process now owns shard 0 and applies the next page to the store.
    await store.applyPage({ fromOffset: 1n, toOffset: 1n, records: [{ offset: 1n, record: dispatch(2n) }] });
    scans.length = 0;
    const next = await reader.sync({ tenantId: T, actingUser: alice, userId: alice, after: first.nextAfter, limit: 10, maxBytes: 1 << 20, waitMs: 0 });
    expect(scans).toEqual(['read']);
    expect(next.entries).toHaveLength(1);
    expect(next.entries[0]!.mailboxSeq > first.nextAfter).toBe(true);

    // Joined again with the shard: answered from memory again, from the store's frontier.
    await join([0]);
    expect(board.owns(0)).toBe(true);
    expect(board.known(0)).toBe(1n);
  });

  it('a long poll waiting on an owned shard keeps its promise across a crash: the shared poller finds what another process applied', async () => {
    const { store, board, worker, driven, reader, join } = await setup();
    await join([0]);
    await worker.handlePage({ topic: 'd', partition: 0, fromOffset: 0n, toOffset: 0n, records: [rec(0n, dispatch(1n))] });
    const first = await reader.sync({ tenantId: T, actingUser: alice, userId: alice, after: null, limit: 10, maxBytes: 1 << 20, waitMs: 0 });
    const t0 = Date.now();
    const poll = reader.sync({ tenantId: T, actingUser: alice, userId: alice, after: first.nextAfter, limit: 10, maxBytes: 1 << 20, waitMs: WAIT_MS });
    // The moment the poll waits is the board's to tell, not a guess of how long that takes.
    await waiting(board, 0);

    driven.emit(EVENTS.CRASH, { error: new Error('The coordinator is not aware of this member'), restart: true });
    expect(board.owns(0)).toBe(false);
    // Another process applies the next page; nothing in this process announces it: only a store read finds it.
    await store.applyPage({ fromOffset: 1n, toOffset: 1n, records: [{ offset: 1n, record: dispatch(2n) }] });
    const page = await poll;
    expect(page.entries).toHaveLength(1);
    expect(page.entries[0]!.mailboxSeq > first.nextAfter).toBe(true);
    // Found before its wait ended (a wait that ran out would answer at WAIT_MS, after its last read).
    expect(Date.now() - t0).toBeLessThan(WAIT_MS);
    expect(reader.polledShards).toBe(0);
  });

  it.each([
    ['a stop', EVENTS.STOP, {}],
    ['a rebalance', EVENTS.REBALANCING, { groupId: 'g', memberId: 'm' }],
  ])('%s releases the shards as well', async (_what, event, payload) => {
    const { board, driven, consumer, join } = await setup();
    await join([0]);
    expect(board.owns(0)).toBe(true);
    driven.emit(event, payload);
    expect(consumer.assignment()).toEqual([]);
    expect(board.owns(0)).toBe(false);
  });
});
