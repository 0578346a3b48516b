import { retryDelayMs, sleep } from './retry-policy';

const policy = { attempts: 5, baseDelayMs: 100, maxDelayMs: 1_000 };

describe('retryDelayMs', () => {
  it('doubles from the base, between half and all of the step, capped', () => {
    expect([1, 2, 3, 4, 5].map((a) => retryDelayMs(policy, a, null, () => 0))).toEqual([50, 100, 200, 400, 500]);
    expect([1, 2, 3, 4, 5].map((a) => retryDelayMs(policy, a, null, () => 1))).toEqual([100, 200, 400, 800, 1_000]);
  });

  it("prefers the server's Retry-After seconds, capped; ignores a date or garbage", () => {
    expect(retryDelayMs(policy, 1, '0.25', () => 0)).toBe(250);
    expect(retryDelayMs(policy, 1, '30', () => 0)).toBe(1_000);
    expect(retryDelayMs(policy, 1, 'Wed, 21 Oct 2015 07:28:00 GMT', () => 0)).toBe(50);
  });
});

describe('sleep', () => {
  it('rejects with the abort reason as soon as the signal aborts', async () => {
    const ac = new AbortController();
    const started = Date.now();
    setTimeout(() => ac.abort(new Error('cancelled')), 20);
    await expect(sleep(10_000, ac.signal)).rejects.toThrow('cancelled');
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
