import type { ConsumedPage, ConsumedRecord } from '@qim/bus';
import type { DispatchRecord, Id128, MailboxStore, MessageRecord } from '@qim/store-core';
import { FrontierGapError, encodeDispatchRecord, epochStartSeq, seqForWatermark } from '@qim/store-core';
import { ManualClock } from '@qim/store-core/testing';
import { memoryMailboxBackend } from '@qim/backends';
import type { BoardEvent } from './frontier-board';
import { FrontierBoard } from './frontier-board';
import { MailboxMetrics } from './mailbox-metrics';
import { dispatchRecordsOf } from './router-plan';
import { ShardWorker } from './shard-worker';
import { specMessage } from './testing/spec-message';

const hex = (n: number) => n.toString(16).padStart(32, '0') as Id128;
const T = hex(0xa1);
const users = Array.from({ length: 5 }, (_, i) => hex(i + 1));
const EPOCH = 2;
const clock = new ManualClock(1_700_000_000_000n);

const message = (seq: bigint, body = `m${seq}`): MessageRecord => specMessage(T, users[0]!, seq, clock.nowMs(), body);
/** All users live in shard 0 of a 1-shard deployment. */
const dispatch = (seq: bigint, body?: string): DispatchRecord => dispatchRecordsOf({ record: message(seq, body), recipients: users }, 1)[0]!;
const raw = (offset: bigint, value: Buffer, partition = 0): ConsumedRecord => ({ topic: 'd', partition, offset, key: null, value });
const rec = (offset: bigint, d: DispatchRecord): ConsumedRecord => raw(offset, encodeDispatchRecord(d));
const page = (records: ConsumedRecord[], from = records[0]!.offset, to = records[records.length - 1]!.offset): ConsumedPage => ({
  topic: 'd',
  partition: 0,
  fromOffset: from,
  toOffset: to,
  records,
});

interface Logged {
  level: string;
  obj: object;
  msg: string;
}

async function setup() {
  const backend = memoryMailboxBackend({ epoch: EPOCH, gc: { entryRetentionMs: 86_400_000n, dispatchDedupeMs: 8n * 86_400_000n }, applyConcurrency: 1 }, clock);
  const store: MailboxStore = await backend.storeFor(0);
  const metrics = new MailboxMetrics(false);
  const board = new FrontierBoard();
  const logged: Logged[] = [];
  const log = {
    info: (obj: object, msg: string) => logged.push({ level: 'info', obj, msg }),
    warn: (obj: object, msg: string) => logged.push({ level: 'warn', obj, msg }),
    error: (obj: object, msg: string) => logged.push({ level: 'error', obj, msg }),
  };
  const poisoned: bigint[] = [];
  const worker = new ShardWorker({
    storeFor: async () => store,
    board,
    metrics,
    log,
    onPoison: async (r) => void poisoned.push(r.offset),
    now: () => Number(clock.nowMs()),
  });
  return { store, metrics, board, worker, logged, poisoned };
}

async function metric(metrics: MailboxMetrics, name: keyof MailboxMetrics, labels: Record<string, string>): Promise<number> {
  const m = metrics[name] as unknown as { get(): Promise<{ values: { value: number; labels: Record<string, string | number> }[] }> };
  const v = (await m.get()).values.find((x) => Object.entries(labels).every(([k, want]) => String(x.labels[k]) === want));
  return v?.value ?? 0;
}

async function entriesOf(store: MailboxStore, user: Id128, frontier: bigint | null): Promise<bigint[]> {
  const p = await store.rangeScan(T, user, epochStartSeq(EPOCH), seqForWatermark(EPOCH, frontier), 100);
  return p.entries.map((e) => e.mailboxSeq);
}

describe('ShardWorker', () => {
  it('applies a page, moves the frontier to its last offset and tells the board which users got entries', async () => {
    const { worker, store, board, metrics } = await setup();
    await worker.onAssigned([0]);
    const events: BoardEvent[] = [];
    board.subscribe(0, (e) => void events.push(e));
    await worker.handlePage(page([rec(0n, dispatch(1n)), rec(1n, dispatch(2n)), rec(2n, dispatch(1n))]));
    expect((await store.frontier()).offset).toBe(2n);
    expect(board.known(0)).toBe(2n);
    for (const u of users) expect(await entriesOf(store, u, 2n)).toEqual([seqForWatermark(EPOCH, 0n), seqForWatermark(EPOCH, 1n)]);
    expect(events).toEqual([{ kind: 'advanced', prior: null, frontier: 2n, users: new Set(users.map((u) => `${T}:${u}`)) }]);
    expect(await metric(metrics, 'dispatchOutcomes', { outcome: 'applied' })).toBe(2);
    expect(await metric(metrics, 'dispatchOutcomes', { outcome: 'duplicate' })).toBe(1);
    expect(await metric(metrics, 'shardFrontier', { shard: '0' })).toBe(2);
    expect(worker.stateOf(0)).toMatchObject({ stall: null, pagesApplied: 1 });
    // Every decoded record of the page was timed at the hand-over to the store, duplicates included.
    expect(await metric(metrics, 'deliveryStageSeconds', { stage: 'applying', le: '+Inf' })).toBe(3);
  });

  it('is idempotent: the same page handled again (after a crash before the commit) changes nothing', async () => {
    const { worker, store } = await setup();
    const p = page([rec(0n, dispatch(1n)), rec(1n, dispatch(2n))]);
    await worker.handlePage(p);
    await worker.handlePage(p);
    expect((await store.frontier()).offset).toBe(1n);
    expect(await entriesOf(store, users[3]!, 1n)).toHaveLength(2);
  });

  it('stalls on a frontier gap: nothing written, the stall counted once however often it is retried, cleared by the missing page', async () => {
    const { worker, store, metrics, logged } = await setup();
    await worker.handlePage(page([rec(0n, dispatch(1n)), rec(1n, dispatch(2n))]));
    const ahead = page([rec(5n, dispatch(3n)), rec(6n, dispatch(4n))]);
    for (let i = 0; i < 3; i++) await expect(worker.handlePage(ahead)).rejects.toBeInstanceOf(FrontierGapError);
    expect((await store.frontier()).offset).toBe(1n);
    expect(await entriesOf(store, users[0]!, 6n)).toHaveLength(2);
    expect(worker.stateOf(0).stall).toMatchObject({ pageFromOffset: 5n, attempts: 3 });
    expect(await metric(metrics, 'shardStalled', { shard: '0' })).toBe(1);
    expect(await metric(metrics, 'shardStalls', { shard: '0' })).toBe(1);
    expect(logged.filter((l) => l.msg.startsWith('shard stalled'))).toHaveLength(1);

    await worker.handlePage(page([rec(2n, dispatch(5n)), rec(5n, dispatch(3n)), rec(6n, dispatch(4n))]));
    expect((await store.frontier()).offset).toBe(6n);
    expect(worker.stateOf(0).stall).toBeNull();
    expect(await metric(metrics, 'shardStalled', { shard: '0' })).toBe(0);
  });

  it('moves past a poison record: its offset is covered by the frontier and carries nothing; dead-lettered, counted and logged once', async () => {
    const { worker, store, metrics, logged, poisoned } = await setup();
    const otherShard = { ...dispatch(9n), shard: 3 };
    const p = page([rec(0n, dispatch(1n)), raw(1n, Buffer.from('not a dispatch record')), rec(2n, otherShard), rec(3n, dispatch(2n))]);
    await worker.handlePage(p);
    await worker.handlePage(p);
    expect((await store.frontier()).offset).toBe(3n);
    expect(await entriesOf(store, users[1]!, 3n)).toEqual([seqForWatermark(EPOCH, 0n), seqForWatermark(EPOCH, 3n)]);
    expect(poisoned).toEqual([1n, 2n]);
    expect(await metric(metrics, 'poisonRecords', { role: 'shard', partition: '0' })).toBe(2);
    expect(logged.filter((l) => l.msg.startsWith('poison record'))).toHaveLength(2);
  });

  it('moves the frontier over a page whose every record is poison', async () => {
    const { worker, store } = await setup();
    await worker.handlePage(page([raw(0n, Buffer.alloc(0)), raw(1n, Buffer.from([1, 2, 3]))]));
    expect((await store.frontier()).offset).toBe(1n);
  });

  it('does not go on when the dead-letter seam fails: the page is refused and nothing is written', async () => {
    const { store, metrics, board } = await setup();
    const worker = new ShardWorker({
      storeFor: async () => store,
      board,
      metrics,
      log: { info: () => undefined, warn: () => undefined, error: () => undefined },
      onPoison: async () => {
        throw new Error('dlq unavailable');
      },
    });
    await expect(worker.handlePage(page([rec(0n, dispatch(1n)), raw(1n, Buffer.from('bad'))]))).rejects.toThrow('dlq unavailable');
    expect((await store.frontier()).offset).toBeNull();
  });

  it('reports a conflicting reuse of a dispatch id (metric and log) and writes nothing for it', async () => {
    const { worker, store, metrics, logged } = await setup();
    await worker.handlePage(page([rec(0n, dispatch(1n))]));
    await worker.handlePage(page([rec(1n, dispatch(1n, 'other content'))]));
    expect(await metric(metrics, 'dispatchOutcomes', { outcome: 'conflict' })).toBe(1);
    expect(logged.filter((l) => l.level === 'error' && l.msg.startsWith('dispatch conflict'))).toHaveLength(1);
    expect(await entriesOf(store, users[2]!, 1n)).toEqual([seqForWatermark(EPOCH, 0n)]);
    expect((await store.frontier()).offset).toBe(1n);
  });

  it('reads each assigned shard frontier once for readiness and reports stalls in the detail', async () => {
    const { worker } = await setup();
    await worker.onAssigned([0]);
    await worker.handlePage(page([rec(0n, dispatch(1n))]));
    await expect(worker.handlePage(page([rec(4n, dispatch(2n))]))).rejects.toBeInstanceOf(FrontierGapError);
    const r = await worker.readiness();
    expect(r.ok).toBe(true);
    expect(r.detail).toMatchObject({ assigned: [0], shards: { '0': { frontier: '0', stalled: { pageFromOffset: '4' } } } });
  });
});

describe('ShardWorker guard (store frontier against Kafka offsets)', () => {
  async function guarded(positions: { low: bigint; end: bigint; committed: bigint | null }) {
    const s = await setup();
    const worker = new ShardWorker({
      storeFor: async () => s.store,
      board: s.board,
      metrics: s.metrics,
      log: { info: () => undefined, warn: () => undefined, error: (obj: object, msg: string) => s.logged.push({ level: 'error', obj, msg }) },
      guard: { epoch: EPOCH, pageRecords: 2, positions: async () => positions },
    });
    return { ...s, worker };
  }

  it(
    'refuses a shard whose group is ahead of the store: the process stays ready ' +
      '(detail and metric name the shard and the command), pages refused, nothing written',
    async () => {
      const { worker, store, logged, metrics } = await guarded({ low: 0n, end: 10n, committed: 4n });
      await worker.onAssigned([0]);
      expect(worker.stateOf(0).refusal).toMatchObject({ kind: 'group-ahead' });
      const r = await worker.readiness();
      expect(r.ok).toBe(true);
      expect(r.detail).toMatchObject({ assigned: [0], refused: [0] });
      expect(JSON.stringify(r.detail)).toContain('reset-mailbox-offsets --shard 0');
      const text = await metrics.registry.metrics();
      expect(text).toMatch(/qim_shard_refused\{shard="0"[^}]*\} 1/);
      expect(text).not.toMatch(/qim_shard_stalled\{shard="0"[^}]*\} 1/);
      await expect(worker.handlePage(page([rec(4n, dispatch(1n))]))).rejects.toThrow(/group is ahead of the store; to resolve: node dist\/apps\/admin/);
      expect((await store.frontier()).offset).toBeNull();
      expect(logged.filter((l) => l.msg.startsWith('shard refused'))).toHaveLength(1);
    },
  );

  it('is green only after the check passed, and runs pages of a consistent shard', async () => {
    const positions = { low: 0n, end: 10n, committed: null as bigint | null };
    const { worker, store } = await guarded(positions);
    expect((await worker.readiness()).ok).toBe(true);
    await worker.onAssigned([0]);
    expect(await worker.readiness()).toMatchObject({ ok: true, detail: { shards: { '0': { frontier: null } } } });
    await worker.handlePage(page([rec(0n, dispatch(1n)), rec(1n, dispatch(2n)), rec(2n, dispatch(3n))]));
    expect((await store.frontier()).offset).toBe(2n);
  });

  it('refuses, instead of skipping, a page wholly below the frontier once the partition ends below it (topic recreated under it)', async () => {
    const positions = { low: 0n, end: 10n, committed: null as bigint | null };
    const { worker, store } = await guarded(positions);
    await worker.onAssigned([0]);
    await worker.handlePage(page([rec(0n, dispatch(1n)), rec(1n, dispatch(2n)), rec(2n, dispatch(3n)), rec(3n, dispatch(4n))]));
    Object.assign(positions, { end: 2n, committed: null });
    await expect(worker.handlePage(page([rec(0n, dispatch(7n)), rec(1n, dispatch(8n))]))).rejects.toThrow(/topic was recreated or truncated/);
    expect(worker.stateOf(0).refusal).toMatchObject({ kind: 'topic-recreated' });
    expect(await worker.readiness()).toMatchObject({ ok: true, detail: { refused: [0] } });
    expect((await store.frontier()).offset).toBe(3n);
  });
});
