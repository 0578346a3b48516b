import type { PartitionOffsets } from './group-offsets';
import { PartitionProgress, STALL_GAP_FACTOR, STALL_MAX_FACTOR, replayHorizon, replayingPartitions } from './partition-progress';

const at = (p: Partial<PartitionOffsets>): PartitionOffsets => ({ partition: 0, committed: 10n, low: 0n, end: 10n, metadata: null, ...p });
const T = 1_800_000_000_000;

describe('PartitionProgress (stalled vs draining)', () => {
  it('calls a partition stalled once records have waited at one committed position for the stall window, and draining again once it moves', () => {
    const progress = new PartitionProgress(5_000);
    const see = (ms: number, committed: bigint, end: bigint) => progress.observe([at({ committed, end })], T + ms).get(0);
    expect(see(0, 10n, 10n)).toBe('caught-up');
    expect(see(500, 10n, 14n)).toBe('draining');
    expect(see(5_000, 10n, 20n)).toBe('draining');
    expect(see(5_499, 10n, 20n)).toBe('draining');
    expect(see(5_500, 10n, 21n)).toBe('stalled');
    expect(see(60_000, 10n, 90n)).toBe('stalled');
    // Moved (the operator's action, or the store came back): draining at once.
    expect(see(60_500, 30n, 90n)).toBe('draining');
    expect(see(61_000, 90n, 90n)).toBe('caught-up');
  });

  it('never calls a partition with nothing waiting stalled, however long its position stays (an idle partition)', () => {
    const progress = new PartitionProgress(1_000);
    for (let ms = 0; ms < 60_000; ms += 500) expect(progress.observe([at({ committed: 10n, end: 10n })], T + ms).get(0)).toBe('caught-up');
  });

  it('stretches the window to the longest recent gap between moves × the factor, so slow heavy pages are not a stall; a stall is never such a gap', () => {
    const progress = new PartitionProgress(5_000);
    const see = (ms: number, committed: bigint) => progress.observe([at({ committed, end: 1_000_000n })], T + ms).get(0);
    // Pages of 4 s under load: the position moves every 4 s while records wait.
    see(0, 100n);
    see(4_000, 200n);
    see(8_000, 300n);
    expect(progress.windowMs(0)).toBe(Math.min(4_000 * STALL_GAP_FACTOR, 5_000 * STALL_MAX_FACTOR));
    // Not moved for 7 s: a slow page, not a stall.
    expect(see(15_000, 300n)).toBe('draining');
    expect(see(16_000, 300n)).toBe('stalled');
    // The stall's own length is not remembered as a gap (nor is any wait longer than the window then in force).
    see(40_000, 400n);
    expect(progress.windowMs(0)).toBe(Math.min(4_000 * STALL_GAP_FACTOR, 5_000 * STALL_MAX_FACTOR));
    // Slower and slower pages stretch it step by step, up to a ceiling.
    let t = 40_000;
    for (const gap of [7_000, 13_000, 20_000]) see((t += gap), BigInt(t));
    expect(progress.windowMs(0)).toBe(5_000 * STALL_MAX_FACTOR);
    // Gaps are forgotten after a while: the window comes back to the configured one.
    see(t + 61_000, BigInt(t + 1));
    see(t + 61_500, BigInt(t + 2));
    expect(progress.windowMs(0)).toBe(5_000);
  });

  it('keeps the partitions apart and judges a position never committed like any other', () => {
    const progress = new PartitionProgress(1_000);
    const read = (ms: number, p1: bigint) =>
      progress.observe([at({ partition: 0, committed: null, low: 0n, end: 5n }), at({ partition: 1, committed: p1, end: 50n })], T + ms);
    read(0, 1n);
    const r = read(1_000, 2n);
    expect([r.get(0), r.get(1)]).toEqual(['stalled', 'draining']);
  });

  it('refuses a window that is not a positive integer', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => new PartitionProgress(bad)).toThrow(RangeError);
  });
});

describe('replay after an epoch bump', () => {
  it("takes per partition the highest position an older epoch's group committed, ignoring positions past the log end (another topic incarnation)", () => {
    const older = [
      [at({ partition: 0, committed: 100n, end: 120n }), at({ partition: 1, committed: 40n, end: 60n })],
      [at({ partition: 0, committed: 90n, end: 120n }), at({ partition: 1, committed: 70n, end: 60n }), at({ partition: 2, committed: null, end: 9n })],
    ];
    expect(replayHorizon(older)).toEqual(
      new Map([
        [0, 100n],
        [1, 40n],
      ]),
    );
  });

  it('calls a partition replaying while its position is below the horizon: those records were delivered in an older epoch', () => {
    const horizon = new Map([
      [0, 100n],
      [1, 40n],
    ]);
    const now = [
      at({ partition: 0, committed: 99n, end: 120n }),
      at({ partition: 1, committed: 40n, end: 60n }),
      at({ partition: 2, committed: 0n, end: 9n }),
      at({ partition: 3, committed: null, low: 3n, end: 200n }),
    ];
    expect(replayingPartitions(now, horizon)).toEqual(new Set([0]));
    expect(replayingPartitions(now, new Map([[3, 50n]]))).toEqual(new Set([3]));
  });
});
