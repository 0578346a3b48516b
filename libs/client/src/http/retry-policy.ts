/**
 * How often and how patiently a call is repeated after a transport failure or a 503. Every call of
 * this client is safe to repeat: a send carries its client message id (the writer answers a
 * repeat with the first answer), reads change nothing, membership and truncate are idempotent.
 */
export interface RetryPolicy {
  /** Attempts in all, including the first (≥ 1). */
  readonly attempts: number;
  /** Delay before the second attempt (ms); doubles each attempt up to `maxDelayMs`. */
  readonly baseDelayMs: number;
  /** Upper bound of one delay (ms), also of a server's `Retry-After`. */
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = Object.freeze({ attempts: 5, baseDelayMs: 100, maxDelayMs: 2_000 });

/** No retry at all (probes such as readiness must report what they saw). */
export const NO_RETRY: RetryPolicy = Object.freeze({ attempts: 1, baseDelayMs: 0, maxDelayMs: 0 });

/**
 * Delay before attempt `attempt + 1` (attempt counts from 1): exponential with jitter in
 * [half, full], or the server's `Retry-After` seconds when given, both capped by `maxDelayMs`.
 */
export function retryDelayMs(policy: RetryPolicy, attempt: number, retryAfter: string | null, random: () => number = Math.random): number {
  const seconds = retryAfter === null ? NaN : Number(retryAfter);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, policy.maxDelayMs);
  const full = Math.min(policy.baseDelayMs * 2 ** (attempt - 1), policy.maxDelayMs);
  return Math.round(full / 2 + (full / 2) * random());
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
