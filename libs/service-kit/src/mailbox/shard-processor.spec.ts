import type { DispatchRecord, Id128, MessageRecord } from '@qim/store-core';
import { LANE_COUNT, ManualClock, laneOf, seqForWatermark } from '@qim/store-core';
import { MemoryMailboxStore } from '@qim/store-memory';
import { dispatchRecordsOf } from '@qim/bus';
import { ServiceMetrics } from '../metrics/service-metrics';
import { ShardProcessor } from './shard-processor';

const hex = (n: number) => n.toString(16).padStart(32, '0') as Id128;
const T = hex(0xa1);
const users = Array.from({ length: 10 }, (_, i) => hex(i + 1));
const clock = new ManualClock(1_700_000_000_000n);

function record(seq: bigint): MessageRecord {
  return {
    tenantId: T,
    conversationId: hex(0xc1),
    seq,
    messageId: hex(0xe000 + Number(seq)),
    senderId: users[0]!,
    clientMessageId: hex(0xd000 + Number(seq)),
    kind: 'normal',
    control: false,
    contentType: 'text/plain',
    body: Buffer.from(`m${seq}`),
    createdAt: clock.nowMs(),
    retention: { kind: 'default' },
  };
}
const dispatch = (seq: bigint): DispatchRecord => dispatchRecordsOf({ record: record(seq), recipients: users }, 1)[0]!;

function setup() {
  const store = new MemoryMailboxStore({ shardEpoch: { shard: 0, epoch: 2 }, gc: { entryRetentionMs: 86_400_000n, dispatchGcDelayMs: 1_000n }, clock });
  const metrics = new ServiceMetrics('mailbox', false);
  return { store, p: new ShardProcessor(0, store, { chunkSize: 2, metrics, now: () => Number(clock.nowMs()) }) };
}

describe('ShardProcessor', () => {
  it('commits nothing before the first record, then min-lane W + 1', async () => {
    const { p } = setup();
    await p.load();
    expect(p.committable()).toBeNull();
    await p.process(0n, dispatch(1n));
    expect(p.committable()).toBe(1n);
    await p.process(1n, dispatch(2n));
    expect(p.committable()).toBe(2n);
    expect(p.watermarks().every((w) => w === 1n)).toBe(true);
  });

  it('writes one entry per recipient at the seq of the first offset, also for a duplicate at a later offset', async () => {
    const { p, store } = setup();
    await p.process(0n, dispatch(1n));
    await p.process(1n, dispatch(1n));
    expect(p.committable()).toBe(2n);
    for (const u of users) {
      const { w } = await store.laneWatermark(laneOf(T, u));
      const page = await store.rangeScan(T, u, seqForWatermark(2, null), seqForWatermark(2, w), 100);
      expect(page.entries).toHaveLength(1);
      expect(page.entries[0]!.mailboxSeq).toBe(seqForWatermark(2, 0n));
    }
  });

  it('re-processing an offset after a restart is idempotent', async () => {
    const { p, store } = setup();
    await p.process(0n, dispatch(1n));
    const again = new ShardProcessor(0, store, { chunkSize: 2, metrics: new ServiceMetrics('mailbox', false) });
    await again.process(0n, dispatch(1n));
    await again.process(1n, dispatch(2n));
    expect(again.committable()).toBe(2n);
  });

  it('refuses a record of another shard', async () => {
    const { p } = setup();
    await expect(p.process(0n, { ...dispatch(1n), shard: 1 })).rejects.toMatchObject({ code: 'INVARIANT_VIOLATION' });
  });

  it('moves floors only behind the committed offset', async () => {
    const { p, store } = setup();
    await p.process(0n, dispatch(1n));
    await p.process(1n, dispatch(2n));
    expect(await p.advanceFloors(1n)).toBe(LANE_COUNT);
    expect((await store.laneWatermark(0)).floor).toBe(0n);
    expect(await p.advanceFloors(1n)).toBe(0);
  });
});
