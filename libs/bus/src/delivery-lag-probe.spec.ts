import type { PartitionOffsets } from './group-offsets';
import { DeliveryLagProbe, LagReadTimeoutError } from './delivery-lag-probe';
import { MailboxGroupFinder, mailboxGroupsAmong } from './mailbox-groups';
import { commitPositionMetadata } from './partition-consumer';

const at = (p: Partial<PartitionOffsets>): PartitionOffsets => ({ partition: 0, committed: 10n, low: 0n, end: 10n, metadata: null, ...p });
const NOW = 1_800_000_000_000;

/** Groups whose partitions and members the test sets before each read, at the test's clock. */
function world() {
  const state = { now: NOW, groups: new Map<string, { members: number; partitions: PartitionOffsets[] }>() };
  const source = {
    listGroups: async () => [...state.groups.keys()],
    members: async (g: string) => state.groups.get(g)?.members ?? 0,
    offsets: async (g: string) => state.groups.get(g)?.partitions ?? [],
  };
  return { state, source, clock: () => state.now };
}

describe('DeliveryLagProbe: stalled partitions leave the gate alone', () => {
  it('does not count a partition whose position stood still for the stall window while records waited, and says which it is', async () => {
    const { state, source, clock } = world();
    const probe = new DeliveryLagProbe(source, [{ groupId: 'shards', topic: 'd' }], clock, { stallMs: 5_000 });
    // Partition 0 drains (its position moves every read); partition 1 stopped at 40 (a source hole).
    const read = async (ms: number) => {
      state.now = NOW + ms;
      const c0 = 100n + BigInt(ms / 500);
      state.groups.set('shards', {
        members: 1,
        partitions: [
          at({ partition: 0, committed: c0, end: c0 + 5n, metadata: commitPositionMetadata(state.now - 800) }),
          at({ partition: 1, committed: 40n, end: 41n + BigInt(ms / 500), metadata: commitPositionMetadata(NOW - 100) }),
        ],
      });
      return probe.read();
    };
    let lag = await read(0);
    for (let ms = 500; ms < 5_000; ms += 500) lag = await read(ms);
    // 4.5 s: still counted (a slow page is not a stall).
    expect(lag.ageMs).toBe(4_600);
    expect(lag.groups[0]!.stalledPartitions).toEqual([]);
    lag = await read(5_000);
    expect(lag.groups[0]!.stalledPartitions).toEqual([1]);
    expect(lag.ageMs).toBe(800);
    // Long after: the stalled partition's age grows without bound, the gate's does not.
    for (let ms = 5_500; ms <= 60_000; ms += 500) lag = await read(ms);
    expect(lag.ageMs).toBe(800);
    expect(lag.groups[0]).toMatchObject({ lagMs: 800, behindRecords: 5n, stalledPartitions: [1] });
  });

  it('does not estimate a drain time while a partition stands still for half its stall window: a stall being confirmed is not load', async () => {
    // The source-hole drill of a fresh-clone run (2026-12-06): a shard stopped at a hole, its age passed
    // the drain threshold (8 s) half a second before the stall window classified it, and its pace,
    // measured over reads that still held moves, was tiny: a drain of 147 s closed the gate. Here the
    // records already waited 3 s at each move, so the age is past 5 s at a standstill of 2.5 s.
    const { state, source, clock } = world();
    const probe = new DeliveryLagProbe(source, [{ groupId: 'shards', topic: 'd' }], clock, { stallMs: 5_000 });
    let committed = 100n;
    let oldestWaiting = NOW - 3_000;
    const read = async (ms: number, moves: boolean) => {
      state.now = NOW + ms;
      if (moves) {
        committed += 2n;
        oldestWaiting = state.now - 3_000;
      }
      state.groups.set('shards', {
        members: 1,
        partitions: [at({ partition: 0, committed, end: committed + 20n + BigInt(ms / 500), metadata: commitPositionMetadata(oldestWaiting) })],
      });
      return probe.read();
    };
    let lag = await read(0, true);
    for (let ms = 500; ms <= 10_000; ms += 500) lag = await read(ms, true);
    // Moving every read, 4 records/s: its drain time counts.
    expect(lag.groups[0]!.drainMs).toBeGreaterThan(0);
    const stoppedAt = 10_000;
    for (let ms = stoppedAt + 500; ms < stoppedAt + 2_500; ms += 500) lag = await read(ms, false);
    // Still for 2 s of a 5 s window: slow, perhaps, and still measured.
    expect(lag.groups[0]!.drainMs).toBeGreaterThan(0);
    lag = await read(stoppedAt + 2_500, false);
    // Half the window: the drain time waits for the window's verdict; the age goes on counting.
    expect(lag.groups[0]!.drainMs).toBeNull();
    expect(lag.drainMs).toBe(0);
    expect(lag.ageMs).toBe(5_500);
    lag = await read(stoppedAt + 4_500, false);
    expect(lag.groups[0]!.drainMs).toBeNull();
    expect(lag.groups[0]!.stalledPartitions).toEqual([]);
    lag = await read(stoppedAt + 5_000, false);
    expect(lag.groups[0]!.stalledPartitions).toEqual([0]);
    // Moving again: counted again, and its drain time estimated again once its pace is measured.
    lag = await read(stoppedAt + 5_500, true);
    expect(lag.groups[0]!.stalledPartitions).toEqual([]);
    expect(lag.ageMs).toBe(3_000);
    for (let ms = stoppedAt + 6_000; ms <= stoppedAt + 20_000; ms += 500) lag = await read(ms, true);
    expect(lag.groups[0]!.drainMs).toBeGreaterThan(0);
  });

  it("does not count a partition a newer epoch replays below what the older epoch's group committed, and counts it again past that", async () => {
    const { state, source, clock } = world();
    const probe = new DeliveryLagProbe(source, [{ groupId: 'mb-shards-e2', topic: 'd', replayOf: ['mb-shards-e1'] }], clock, { stallMs: 5_000 });
    state.groups.set('mb-shards-e1', {
      members: 0,
      partitions: [at({ partition: 0, committed: 1_000n, end: 1_010n, metadata: commitPositionMetadata(NOW - 2_000) })],
    });
    const e2 = (committed: bigint, handledAt: number) =>
      state.groups.set('mb-shards-e2', { members: 1, partitions: [at({ partition: 0, committed, end: 1_010n, metadata: commitPositionMetadata(handledAt) })] });
    // A week-old record replayed: not delivery lag.
    e2(300n, NOW - 7 * 86_400_000);
    let lag = await probe.read();
    expect(lag.ageMs).toBe(0);
    expect(lag.groups[0]).toMatchObject({ replayingPartitions: [0], behindRecords: 0n });
    // Past the older epoch's position: the records after it are this epoch's own backlog.
    state.now += 500;
    e2(1_002n, NOW - 1_000);
    lag = await probe.read();
    expect(lag.ageMs).toBe(1_500);
    expect(lag.groups[0]).toMatchObject({ replayingPartitions: [], behindRecords: 8n });
  });
});

describe('DeliveryLagProbe: a bounded read', () => {
  it('fails a read the broker does not answer within the read timeout, and the next one at once while it is still unanswered', async () => {
    let answer!: () => void;
    const hanging = new Promise<void>((r) => (answer = r));
    const source = { members: async () => 1, offsets: async () => (await hanging, []) };
    const probe = new DeliveryLagProbe(source, [{ groupId: 'g', topic: 't' }], Date.now, { readTimeoutMs: 20 });
    await expect(probe.read()).rejects.toBeInstanceOf(LagReadTimeoutError);
    await expect(probe.read()).rejects.toThrow(/still unanswered/);
    answer();
    await new Promise((r) => setImmediate(r));
    await expect(probe.read()).resolves.toMatchObject({ ageMs: 0 });
  });
});

describe('mailbox groups found on the broker', () => {
  const naming = { clientId: 'mb', messagesTopic: 'm', dispatchTopic: 'd' };

  it('picks the router and shard groups of the client id out of the listed groups, shard groups by ascending epoch', () => {
    expect(
      mailboxGroupsAmong(
        ['other-router', 'mb-router', 'mb-shards-e10', 'mb-shards-e2', 'mb-shards-ex', 'mb-shards-e', 'mbx-shards-e1', 'mb-shards-e02'],
        naming,
      ),
    ).toEqual({
      router: 'mb-router',
      shards: [
        { groupId: 'mb-shards-e2', epoch: 2 },
        { groupId: 'mb-shards-e10', epoch: 10 },
      ],
    });
  });

  it(
    'watches the router and the shard groups that have members, each replay-judged against the older epochs; ' +
      'with none live, the newest; says when that changes',
    async () => {
      const { state, source } = world();
      const seen: string[][] = [];
      const finder = new MailboxGroupFinder(source, naming);
      state.groups.set('mb-router', { members: 1, partitions: [] });
      state.groups.set('mb-shards-e0', { members: 1, partitions: [] });
      expect(await finder.find()).toEqual([
        { groupId: 'mb-router', topic: 'm' },
        { groupId: 'mb-shards-e0', topic: 'd', replayOf: [] },
      ]);
      // The runbook's bump: every mailbox stopped, the epoch raised, started again.
      state.groups.set('mb-shards-e0', { members: 0, partitions: [] });
      state.groups.set('mb-shards-e1', { members: 2, partitions: [] });
      expect(await finder.find()).toEqual([
        { groupId: 'mb-router', topic: 'm' },
        { groupId: 'mb-shards-e1', topic: 'd', replayOf: ['mb-shards-e0'] },
      ]);
      // Every mailbox stopped: the newest epoch's group (which counts for nothing without members).
      state.groups.set('mb-shards-e1', { members: 0, partitions: [] });
      expect((await finder.find()).map((g) => g.groupId)).toEqual(['mb-router', 'mb-shards-e1']);
      // The probe re-reads the groups every rediscoverMs and reports each change once.
      const probe = new DeliveryLagProbe(source, finder, () => state.now, { rediscoverMs: 5_000, onWatch: (g) => seen.push(g.map((x) => x.groupId)) });
      await probe.read();
      state.groups.set('mb-shards-e2', { members: 1, partitions: [] });
      state.now += 4_999;
      await probe.read();
      state.now += 1;
      await probe.read();
      await probe.read();
      expect(seen).toEqual([
        ['mb-router', 'mb-shards-e1'],
        ['mb-router', 'mb-shards-e2'],
      ]);
    },
  );
});
