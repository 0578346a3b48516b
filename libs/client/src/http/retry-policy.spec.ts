import { retryAfterMsOf, retryDelayMs, sleep } from './retry-policy';

const policy = { attempts: 5, baseDelayMs: 100, maxDelayMs: 1_000 };

describe('retryDelayMs', () => {
  it('doubles from the base, between half and all of the step, capped', () => {
    expect([1, 2, 3, 4, 5].map((a) => retryDelayMs(policy, a, null, () => 0))).toEqual([50, 100, 200, 400, 500]);
    expect([1, 2, 3, 4, 5].map((a) => retryDelayMs(policy, a, null, () => 1))).toEqual([100, 200, 400, 800, 1_000]);
  });

  it("waits exactly the server's Retry-After (never sooner, whatever maxDelayMs), else the backoff", () => {
    expect(retryDelayMs(policy, 1, 250, () => 0)).toBe(250);
    expect(retryDelayMs(policy, 1, 5_000, () => 0)).toBe(5_000);
    expect(retryDelayMs(policy, 1, null, () => 0)).toBe(50);
  });
});

describe('retryAfterMsOf', () => {
  it('reads delta seconds and HTTP dates; garbage is no hint', () => {
    const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
    expect(retryAfterMsOf('0.25', now)).toBe(250);
    expect(retryAfterMsOf('30', now)).toBe(30_000);
    expect(retryAfterMsOf('Wed, 21 Oct 2015 07:28:03 GMT', now)).toBe(3_000);
    expect(retryAfterMsOf('Wed, 21 Oct 2015 07:27:00 GMT', now)).toBe(0);
    expect(retryAfterMsOf('soon', now)).toBeNull();
    expect(retryAfterMsOf('-1', now)).toBeNull();
    expect(retryAfterMsOf(null, now)).toBeNull();
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
