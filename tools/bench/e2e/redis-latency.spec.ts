import { latencyEventOf, latestEventNames } from './redis-latency';

describe("Redis's latency monitor over a phase", () => {
  it('sums the per-second maxima of an event and keeps its largest', () => {
    expect(
      latencyEventOf('aof-fsync-always', [
        [1764600000, 12],
        [1764600001, 230],
        [1764600003, 8],
      ]),
    ).toEqual({
      event: 'aof-fsync-always',
      seconds: 3,
      maxMs: 230,
      sumMs: 250,
    });
    expect(latencyEventOf('fork', [])).toEqual({ event: 'fork', seconds: 0, maxMs: 0, sumMs: 0 });
  });

  it('reads the event names of LATENCY LATEST', () => {
    expect(
      latestEventNames([
        ['fork', 1764600000, 41, 41],
        ['command', 1764600002, 7, 19],
      ]),
    ).toEqual(['fork', 'command']);
  });

  it('fails loudly on a reply of another shape', () => {
    expect(() => latencyEventOf('fork', 'nope')).toThrow('LATENCY HISTORY fork: not an array');
    expect(() => latencyEventOf('fork', [[1, 2, 3]])).toThrow('unexpected sample [1,2,3]');
    expect(() => latestEventNames([[7]])).toThrow('LATENCY LATEST: unexpected row [7]');
  });
});
