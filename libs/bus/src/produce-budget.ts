import { DEFAULT_PRODUCER_RETRIES, PRODUCE_RETRY_POLICY } from './idempotent-producer';

/** kafkajs' default request timeout: the most an attempt is given when the deadline allows it. */
export const MAX_REQUEST_TIMEOUT_MS = 30_000;

/** Retries are dropped before an attempt gets less than this (unless the deadline itself is shorter). */
export const MIN_ATTEMPT_MS = 2_000;

/** How long one produce request may take, all its attempts together. */
export interface ProduceBudget {
  /** The Kafka client's `requestTimeout`: an attempt without an answer by then fails (ambiguously). */
  readonly requestTimeoutMs: number;
  /** The produce request's `timeout` (acks = all): the broker answers with an error before the client gives up. */
  readonly ackTimeoutMs: number;
  /** Retries of the request before it fails (then the producer fences). */
  readonly retries: number;
}

/**
 * The sum of the first `retries` backoffs at their largest: what kafkajs' retrier waits when every
 * jittered delay lands at its top (`ceil(t·(1+factor))`, times the multiplier, capped).
 */
export function worstCaseBackoffsMs(retries: number): number {
  const { initialRetryTime, factor, multiplier, maxRetryTime } = PRODUCE_RETRY_POLICY;
  let delay = Math.ceil(initialRetryTime * (1 + factor));
  let sum = 0;
  for (let i = 0; i < retries; i++) {
    sum += delay;
    delay = Math.min(Math.ceil(delay * (1 + factor)) * multiplier, maxRetryTime);
  }
  return sum;
}

/** Every attempt of one produce request timing out, with the largest backoffs between them. */
export function worstCaseSendMs(b: ProduceBudget): number {
  return (b.retries + 1) * b.requestTimeoutMs + worstCaseBackoffsMs(b.retries);
}

/**
 * The producer budget within a send deadline (`QIM_SEND_DEADLINE_MS`), so that a produce request
 * that cannot succeed fails (and its producer fences) before the send's client gets its 503, instead
 * of holding the one in-flight request of the outbox for kafkajs' 30 s × 6 attempts: the most retries
 * (up to `DEFAULT_PRODUCER_RETRIES`) that still leave every attempt `MIN_ATTEMPT_MS`, each attempt an
 * equal share of what the worst-case backoffs leave (at most 30 s); the broker's ack timeout 80 % of
 * an attempt. `startWaitMs`: the most a request may wait before it starts (the produce pace,
 * `GroupCommitOptions.paceMs`), left out of the attempts' share. `worstCaseSendMs(budget) +
 * startWaitMs ≤ deadlineMs` always.
 */
export function produceBudgetWithin(sendDeadlineMs: number, startWaitMs = 0): ProduceBudget {
  if (!Number.isSafeInteger(sendDeadlineMs) || sendDeadlineMs < 1)
    throw new RangeError(`send deadline must be a positive integer of ms (got ${sendDeadlineMs})`);
  if (!Number.isSafeInteger(startWaitMs) || startWaitMs < 0 || startWaitMs >= sendDeadlineMs) {
    throw new RangeError(`start wait must be an integer of ms, ≥ 0 and below the send deadline ${sendDeadlineMs} (got ${startWaitMs})`);
  }
  const deadlineMs = sendDeadlineMs - startWaitMs;
  for (let retries = DEFAULT_PRODUCER_RETRIES; retries >= 1; retries--) {
    const share = Math.floor((deadlineMs - worstCaseBackoffsMs(retries)) / (retries + 1));
    if (share >= MIN_ATTEMPT_MS) return budgetOf(Math.min(share, MAX_REQUEST_TIMEOUT_MS), retries);
  }
  return budgetOf(Math.min(deadlineMs, MAX_REQUEST_TIMEOUT_MS), 0);
}

function budgetOf(requestTimeoutMs: number, retries: number): ProduceBudget {
  return { requestTimeoutMs, ackTimeoutMs: Math.max(1, Math.floor(requestTimeoutMs * 0.8)), retries };
}
