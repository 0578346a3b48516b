import { RetryBackoff } from './retry-backoff';

describe('RetryBackoff', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('doubles the delay per consecutive failure up to the cap and resumes after it', () => {
    const b = new RetryBackoff({ initialMs: 100, maxMs: 350 }, () => 0);
    const resumed: number[] = [];
    expect([1, 2, 3, 4].map((i) => b.failed(7, new Error(`e${i}`), () => resumed.push(i)))).toEqual([100, 200, 350, 350]);
    expect(b.state().get(7)).toEqual({ attempts: 4, error: 'e4', retryAt: 350 });
    jest.advanceTimersByTime(349);
    expect(resumed).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(resumed).toEqual([4]);
  });

  it('starts over after a success and keeps partitions apart', () => {
    const b = new RetryBackoff({ initialMs: 100, maxMs: 10_000 }, () => 0);
    b.failed(1, 'x', () => undefined);
    b.failed(1, 'x', () => undefined);
    expect(b.failed(2, 'y', () => undefined)).toBe(100);
    b.succeeded(1);
    expect([...b.state().keys()]).toEqual([2]);
    expect(b.failed(1, 'x', () => undefined)).toBe(100);
  });

  it('cancels pending resumes on clear', () => {
    const b = new RetryBackoff({ initialMs: 10, maxMs: 10 });
    let resumed = false;
    b.failed(0, 'x', () => (resumed = true));
    b.clear();
    jest.advanceTimersByTime(100);
    expect([resumed, b.state().size]).toEqual([false, 0]);
  });
});
