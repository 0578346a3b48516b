import { DEFAULT_PRODUCER_RETRIES, PRODUCE_RETRY_POLICY } from './idempotent-producer';
import { MIN_ATTEMPT_MS, produceBudgetWithin, worstCaseBackoffsMs, worstCaseSendMs } from './produce-budget';

/**
 * The outbox producer's time budget is derived from the writer's send deadline: every attempt of
 * one produce request timing out, with the largest backoffs kafkajs' jitter allows, still ends
 * within the deadline (kafkajs' own defaults, 30 s per request and 5 retries, do not: 180 s).
 */
describe('produceBudgetWithin (send deadline → request timeout, ack timeout, retries)', () => {
  it('replays kafkajs backoffs at their largest jitter: ceil(200·1.2), then ×1.2 (ceil) ×2 each, capped', () => {
    expect([0, 1, 2, 3, 4, 5].map(worstCaseBackoffsMs)).toEqual([0, 240, 816, 2_200, 5_522, 13_496]);
    expect(PRODUCE_RETRY_POLICY).toEqual({ initialRetryTime: 200, factor: 0.2, multiplier: 2, maxRetryTime: 30_000 });
  });

  it('gives the default 10 s deadline 2 retries of 3,061 ms requests (kafkajs default: 5 × 30 s)', () => {
    expect(produceBudgetWithin(10_000)).toEqual({ requestTimeoutMs: 3_061, ackTimeoutMs: 2_448, retries: 2 });
    expect(worstCaseSendMs(produceBudgetWithin(10_000))).toBeLessThanOrEqual(10_000);
  });

  it('keeps the default retries and the kafkajs request timeout when the deadline allows them', () => {
    expect(produceBudgetWithin(600_000)).toEqual({ requestTimeoutMs: 30_000, ackTimeoutMs: 24_000, retries: DEFAULT_PRODUCER_RETRIES });
  });

  it('drops retries before it shortens an attempt below MIN_ATTEMPT_MS, and never exceeds the deadline', () => {
    expect(produceBudgetWithin(5_000)).toEqual({ requestTimeoutMs: 2_380, ackTimeoutMs: 1_904, retries: 1 });
    expect(produceBudgetWithin(MIN_ATTEMPT_MS)).toEqual({ requestTimeoutMs: MIN_ATTEMPT_MS, ackTimeoutMs: 1_600, retries: 0 });
    // Below one minimum attempt: a single attempt of the whole deadline.
    expect(produceBudgetWithin(100)).toEqual({ requestTimeoutMs: 100, ackTimeoutMs: 80, retries: 0 });
    for (let deadline = 100; deadline <= 600_000; deadline += 997) {
      const b = produceBudgetWithin(deadline);
      expect({
        deadline,
        fits: worstCaseSendMs(b) <= deadline,
        retries: b.retries <= DEFAULT_PRODUCER_RETRIES,
        ack: b.ackTimeoutMs < b.requestTimeoutMs,
      }).toEqual({
        deadline,
        fits: true,
        retries: true,
        ack: true,
      });
    }
  });

  it('leaves room for the wait before a request starts (the produce pace): worst case + wait ≤ deadline', () => {
    // The default 10 s deadline with the default 5 ms pace: the attempts shrink by the wait's share.
    expect(produceBudgetWithin(10_000, 5)).toEqual({ requestTimeoutMs: 3_059, ackTimeoutMs: 2_447, retries: 2 });
    for (const [deadline, waitMs] of [
      [10_000, 100],
      [1_000, 100],
      [120_000, 100],
      [2_100, 100],
    ] as const) {
      expect(worstCaseSendMs(produceBudgetWithin(deadline, waitMs)) + waitMs).toBeLessThanOrEqual(deadline);
    }
    for (const bad of [-1, 1.5, Number.NaN, 10_000]) expect(() => produceBudgetWithin(10_000, bad)).toThrow(/start wait must be an integer of ms/);
  });

  it('refuses a deadline that is not a positive integer of milliseconds', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => produceBudgetWithin(bad)).toThrow(/send deadline must be a positive integer/);
    }
  });
});
