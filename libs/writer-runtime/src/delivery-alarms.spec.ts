import type { DeliveryLag, GroupLag } from '@qim/bus';
import { DeliveryAlarms, admissionProbeTimings } from './delivery-alarms';

const group = (groupId: string, stalledPartitions: number[], replayingPartitions: number[] = []): GroupLag => ({
  groupId,
  topic: 't',
  members: 1,
  lagMs: 0,
  behindRecords: 0n,
  unknownPartitions: 0,
  stalledPartitions,
  replayingPartitions,
  drainMs: 0,
  recordsPerSecond: null,
});
const lag = (...groups: GroupLag[]): DeliveryLag => ({ ageMs: 0, drainMs: 0, groups });

describe('DeliveryAlarms', () => {
  it("reports each change of a group's stalled or replaying partitions once, not every read", () => {
    const alarms = new DeliveryAlarms();
    expect(alarms.update(lag(group('r', []), group('s', [])))).toEqual([]);
    expect(alarms.update(lag(group('r', []), group('s', [1])))).toEqual([{ groupId: 's', stalled: [1], replaying: [], was: { stalled: [], replaying: [] } }]);
    expect(alarms.update(lag(group('r', []), group('s', [1])))).toEqual([]);
    expect(alarms.update(lag(group('r', []), group('s', [0, 1])))).toEqual([
      { groupId: 's', stalled: [0, 1], replaying: [], was: { stalled: [1], replaying: [] } },
    ]);
    expect(alarms.update(lag(group('r', []), group('s', [])))).toEqual([{ groupId: 's', stalled: [], replaying: [], was: { stalled: [0, 1], replaying: [] } }]);
    expect(alarms.update(lag(group('s2', [], [0, 1])))).toEqual([{ groupId: 's2', stalled: [], replaying: [0, 1], was: { stalled: [], replaying: [] } }]);
  });
});

describe('admissionProbeTimings', () => {
  it('takes the configured stall window and bounds a read by twice the poll, at least 2 s', () => {
    expect(admissionProbeTimings({ stallMs: 5_000, pollMs: 500 })).toEqual({ stallMs: 5_000, readTimeoutMs: 2_000 });
    expect(admissionProbeTimings({ stallMs: 1, pollMs: 5_000 })).toEqual({ stallMs: 1, readTimeoutMs: 10_000 });
  });
});
