import { groupLag, positionLagMs } from './consumer-lag';
import { DeliveryLagProbe } from './delivery-lag-probe';
import type { GroupOffsetsSource } from './delivery-lag-probe';
import type { PartitionOffsets } from './group-offsets';
import { commitPositionMetadata, parseCommitPositionMetadata } from './partition-consumer';

const at = (p: Partial<PartitionOffsets>): PartitionOffsets => ({ partition: 0, committed: 10n, low: 0n, end: 10n, metadata: null, ...p });
const NOW = 1_800_000_000_000;

describe('commit position metadata', () => {
  it('round-trips a record timestamp and refuses anything else', () => {
    expect(parseCommitPositionMetadata(commitPositionMetadata(NOW))).toBe(NOW);
    for (const bad of [
      null,
      undefined,
      '',
      't=5',
      'qim-pos-v1:t=',
      'qim-pos-v1:t=-5',
      'qim-pos-v1:t=0',
      'qim-pos-v1:t=12x',
      'qim-pos-v2:t=5',
      'qim-pos-v1:t=1234567890123456',
    ]) {
      expect(parseCommitPositionMetadata(bad)).toBeNull();
    }
    for (const bad of [0, -1, 1.5, Number.NaN, 2 ** 60]) expect(() => commitPositionMetadata(bad)).toThrow(RangeError);
  });
});

describe('positionLagMs', () => {
  it('is 0 at the log end whatever the metadata says', () => {
    expect(positionLagMs(at({ committed: 10n, end: 10n, metadata: commitPositionMetadata(NOW - 60_000) }), NOW)).toBe(0);
    expect(positionLagMs(at({ committed: 12n, end: 10n }), NOW)).toBe(0);
  });

  it('is the time since the last handled record when records wait behind the position', () => {
    expect(positionLagMs(at({ committed: 7n, end: 10n, metadata: commitPositionMetadata(NOW - 4_500) }), NOW)).toBe(4_500);
    // A clock behind the producer's: never negative.
    expect(positionLagMs(at({ committed: 7n, end: 10n, metadata: commitPositionMetadata(NOW + 100) }), NOW)).toBe(0);
  });

  it('is unknown when records wait behind a position that was never committed or has no position metadata', () => {
    expect(positionLagMs(at({ committed: null, low: 0n, end: 3n }), NOW)).toBeNull();
    expect(positionLagMs(at({ committed: 7n, end: 10n, metadata: 'someone else' }), NOW)).toBeNull();
    // An empty partition never committed: nothing waits.
    expect(positionLagMs(at({ committed: null, low: 5n, end: 5n }), NOW)).toBe(0);
  });
});

describe('groupLag', () => {
  it('takes the oldest wait over the partitions, counts the records behind and the partitions it cannot tell', () => {
    const g = groupLag(
      { groupId: 'g', topic: 't' },
      2,
      [
        at({ partition: 0, committed: 7n, end: 10n, metadata: commitPositionMetadata(NOW - 1_000) }),
        at({ partition: 1, committed: 2n, end: 12n, metadata: commitPositionMetadata(NOW - 9_000) }),
        at({ partition: 2, committed: null, low: 4n, end: 6n }),
        at({ partition: 3, committed: 1n, low: 5n, end: 6n, metadata: commitPositionMetadata(NOW - 2_000) }),
      ],
      NOW,
    );
    expect(g).toEqual({
      groupId: 'g',
      topic: 't',
      members: 2,
      lagMs: 9_000,
      behindRecords: 3n + 10n + 2n + 1n,
      unknownPartitions: 1,
      stalledPartitions: [],
      replayingPartitions: [],
      drainMs: null,
      recordsPerSecond: null,
    });
  });

  it('is null when no partition with waiting records can tell its age', () => {
    expect(groupLag({ groupId: 'g', topic: 't' }, 1, [at({ committed: null, end: 3n })], NOW).lagMs).toBeNull();
  });
});

describe('DeliveryLagProbe', () => {
  /** A probe of one group with one member over the partitions the test sets before each read, at the test's clock. */
  function overPartitions(groupId: string, topic: string) {
    const state = { now: NOW, partitions: [] as PartitionOffsets[] };
    const probe = new DeliveryLagProbe({ members: async () => 1, offsets: async () => state.partitions }, [{ groupId, topic }], () => state.now);
    return { state, probe };
  }

  function source(groups: Record<string, { members: number; partitions: PartitionOffsets[] }>): GroupOffsetsSource & { asked: string[] } {
    const asked: string[] = [];
    return {
      asked,
      members: async (g) => groups[g]!.members,
      offsets: async (g, topic) => {
        asked.push(`${g}@${topic}`);
        return groups[g]!.partitions;
      },
    };
  }

  it('answers the largest lag over the groups that have members, ignoring a group nobody consumes for', async () => {
    const s = source({
      router: { members: 1, partitions: [at({ committed: 3n, end: 4n, metadata: commitPositionMetadata(NOW - 2_000) })] },
      shards: { members: 2, partitions: [at({ committed: 3n, end: 9n, metadata: commitPositionMetadata(NOW - 6_000) })] },
      stopped: { members: 0, partitions: [at({ committed: 3n, end: 900n, metadata: commitPositionMetadata(NOW - 600_000) })] },
    });
    const probe = new DeliveryLagProbe(
      s,
      [
        { groupId: 'router', topic: 'messages' },
        { groupId: 'shards', topic: 'dispatch' },
        { groupId: 'stopped', topic: 'dispatch' },
      ],
      () => NOW,
    );
    const lag = await probe.read();
    expect([lag.ageMs, lag.drainMs]).toEqual([6_000, 0]);
    expect(lag.groups.map((g) => [g.groupId, g.members, g.lagMs])).toEqual([
      ['router', 1, 2_000],
      ['shards', 2, 6_000],
      ['stopped', 0, 600_000],
    ]);
    expect(s.asked).toEqual(['router@messages', 'shards@dispatch', 'stopped@dispatch']);
  });

  it('answers 0 when every group is caught up or cannot tell', async () => {
    const s = source({ a: { members: 1, partitions: [at({})] }, b: { members: 1, partitions: [at({ committed: null, end: 5n })] } });
    const lag = await new DeliveryLagProbe(
      s,
      [
        { groupId: 'a', topic: 't' },
        { groupId: 'b', topic: 't' },
      ],
      () => NOW,
    ).read();
    expect([lag.ageMs, lag.drainMs]).toEqual([0, 0]);
  });

  it('also answers how long the backlog will take at the pace of its current unbroken stretch, once that spans a second', async () => {
    const { state, probe } = overPartitions('shards', 'dispatch');
    const read = async (committed: bigint, end: bigint, lastHandledAt: number) => {
      state.partitions = [at({ committed, end, metadata: commitPositionMetadata(lastHandledAt) })];
      return probe.read();
    };
    const step = async (ms: number, committed: bigint, end: bigint) => {
      state.now += ms;
      return read(committed, end, state.now - 100);
    };
    expect((await read(100n, 100n, NOW)).ageMs).toBe(0);
    // A burst: 1,000 behind; the stretch starts here, no pace yet → the age decides (bounded by the time since caught up).
    let r = await step(500, 100n, 1_100n);
    expect(r.groups[0]).toMatchObject({ lagMs: 100, drainMs: null, recordsPerSecond: null });
    // Half a second into the stretch: still no pace (a page commit can take seconds).
    r = await step(500, 120n, 1_400n);
    expect(r.groups[0]).toMatchObject({ drainMs: null, recordsPerSecond: null });
    // A second into it: 50 records in 1 s → 50/s; 1,450 behind → 29 s to drain, far above the age.
    r = await step(500, 150n, 1_600n);
    expect(r.groups[0]).toMatchObject({ lagMs: 100, recordsPerSecond: 50, drainMs: 29_000, behindRecords: 1_450n });
    expect([r.ageMs, r.drainMs]).toEqual([100, 29_000]);
    // The window keeps the last 5 s: 10 reads later only the newer pace counts.
    for (let i = 1; i <= 10; i++) r = await step(500, 150n + BigInt(i) * 100n, 1_600n + BigInt(i) * 10n);
    expect(r.groups[0]!.recordsPerSecond).toBe(200);
    expect(r.groups[0]!.drainMs).toBe(Math.round((1_700 - 1_150) / 0.2));
    // A consumer that stops: still counted 4.5 s on (a heavy page can take that long)…
    for (let i = 0; i < 9; i++) r = await step(500, 1_150n, 1_700n);
    expect(r.groups[0]).toMatchObject({ behindRecords: 550n, stalledPartitions: [] });
    // …until its position has stood still for the stall window (5 s): stalled, it counts for nothing.
    for (let i = 0; i < 3; i++) r = await step(500, 1_150n, 1_700n);
    expect(r.groups[0]).toMatchObject({ recordsPerSecond: null, drainMs: 0, lagMs: null, behindRecords: 0n, stalledPartitions: [0] });
    // Caught up: the stretch ends; the next backlog starts without a pace (another mix may follow).
    r = await step(500, 1_700n, 1_700n);
    expect(r.groups[0]).toMatchObject({ drainMs: 0, lagMs: 0, recordsPerSecond: null });
    r = await step(500, 1_700n, 1_900n);
    expect(r.groups[0]).toMatchObject({ recordsPerSecond: null, drainMs: null });
    // Offsets moved back (a reset): the stretch starts again.
    await step(600, 1_800n, 1_900n);
    r = await step(600, 10n, 1_900n);
    expect(r.groups[0]).toMatchObject({ recordsPerSecond: null, drainMs: null });
  });

  it('bounds the wait of records that came after an idle spell by the time since the partition was last seen caught up', async () => {
    const { state, probe } = overPartitions('g', 't');
    // The last record before the idle spell was handled an hour ago.
    const lastHandled = commitPositionMetadata(NOW - 3_600_000);
    state.partitions = [
      at({ partition: 0, committed: 50n, end: 50n, metadata: lastHandled }),
      at({ partition: 1, committed: 7n, end: 9n, metadata: commitPositionMetadata(NOW - 3_000) }),
    ];
    expect((await probe.read()).groups[0]!.lagMs).toBe(3_000);
    state.now += 400;
    // New records on partition 0: seen caught up 400 ms ago, so they waited at most that long, not an hour.
    state.partitions = [
      at({ partition: 0, committed: 50n, end: 60n, metadata: lastHandled }),
      at({ partition: 1, committed: 7n, end: 9n, metadata: commitPositionMetadata(NOW - 3_000) }),
    ];
    expect((await probe.read()).groups[0]!.lagMs).toBe(3_400);
    state.partitions = [at({ partition: 0, committed: 50n, end: 60n, metadata: lastHandled })];
    expect((await probe.read()).groups[0]!.lagMs).toBe(400);
    // A partition never seen caught up keeps the metadata's age.
    expect(groupLag({ groupId: 'g', topic: 't' }, 1, state.partitions, state.now).lagMs).toBe(3_600_400);
  });

  it('needs a group to watch', () => {
    expect(() => new DeliveryLagProbe(source({}), [])).toThrow(RangeError);
  });
});
