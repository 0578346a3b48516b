import { bySecond, outsideWindows, summarize } from './stats';

describe('latency summaries', () => {
  it('nearest-rank percentiles', () => {
    const s = summarize([5, 1, 4, 2, 3]);
    expect([s.count, s.p50, s.p99, s.max]).toEqual([5, 3, 5, 5]);
    expect(summarize([]).p50).toBeNull();
  });

  it('groups latencies by the second their sends started in, from the phase start', () => {
    const t0 = 10_000;
    const sentAt = [10_000, 10_999, 11_000, 13_500, 9_990];
    const latencies = [20, 40, 300, 10, 7];
    expect(bySecond(sentAt, latencies, t0)).toEqual([
      // A send started just before t0 (a warm-up straggler) counts in the first second.
      { second: 0, count: 3, p50: 20, p99: 40, max: 40 },
      { second: 1, count: 1, p50: 300, p99: 300, max: 300 },
      { second: 3, count: 1, p50: 10, p99: 10, max: 10 },
    ]);
  });

  it('refuses send times and latencies that do not pair up', () => {
    expect(() => bySecond([1, 2], [1], 0)).toThrow(/2 send times for 1 latencies/);
  });

  it('keeps only the messages whose way from send to visible stayed clear of every window (with slack)', () => {
    const t0 = 1_000;
    // Relative to t0: 0→50, 900→1,200 (overlaps [1,000, 2,000]), 1,750→1,800 (inside),
    // 2,150→2,190 (within 200 ms slack of its end), 2,500→2,600 (clear), 2,990→3,010 (overlaps [3,000, 3,100]).
    const sentAt = [1_000, 1_900, 2_750, 3_150, 3_500, 3_990];
    const latencies = [50, 300, 50, 40, 100, 20];
    const windows: [number, number][] = [
      [1_000, 2_000],
      [3_000, 3_100],
    ];
    expect(outsideWindows(sentAt, latencies, t0, windows, 200)).toEqual([50, 100]);
    expect(outsideWindows(sentAt, latencies, t0, windows, 0)).toEqual([50, 40, 100]);
    expect(outsideWindows(sentAt, latencies, t0, [], 200)).toEqual(latencies);
  });
});
