/**
 * How often and how patiently a call is repeated after a transport failure, a 503 or a 429. Every call of
 * this client is safe to repeat: a send carries its client message id (the writer answers a
 * repeat with the first answer), reads change nothing, membership and truncate are idempotent.
 */
export interface RetryPolicy {
  /** Attempts in all, including the first (≥ 1). */
  readonly attempts: number;
  /** Delay before the second attempt (ms); doubles each attempt up to `maxDelayMs`. */
  readonly baseDelayMs: number;
  /** Upper bound of one backoff delay (ms). */
  readonly maxDelayMs: number;
  /**
   * The longest server `Retry-After` the client waits out before repeating (ms, default
   * `DEFAULT_MAX_RETRY_AFTER_MS`). A longer one ends the call at once with the error, its
   * `retryAfterMs` saying when the server asked to be called again: never sooner than asked.
   */
  readonly maxRetryAfterMs?: number;
}

export const DEFAULT_MAX_RETRY_AFTER_MS = 10_000;

export const DEFAULT_RETRY: RetryPolicy = Object.freeze({ attempts: 5, baseDelayMs: 100, maxDelayMs: 2_000, maxRetryAfterMs: DEFAULT_MAX_RETRY_AFTER_MS });

/** No retry at all (probes such as readiness must report what they saw). */
export const NO_RETRY: RetryPolicy = Object.freeze({ attempts: 1, baseDelayMs: 0, maxDelayMs: 0, maxRetryAfterMs: 0 });

/** A `Retry-After` header as ms from `now`: delta seconds or an HTTP date (past → 0); null when absent or unreadable. */
export function retryAfterMsOf(header: string | null, now: number = Date.now()): number | null {
  if (header === null) return null;
  const v = header.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const date = /[A-Za-z]/.test(v) ? Date.parse(v) : NaN;
  return Number.isFinite(date) ? Math.max(0, date - now) : null;
}

/**
 * Delay before attempt `attempt + 1` (attempt counts from 1): the server's `Retry-After` exactly
 * when given (ms), else exponential backoff with jitter in [half, full] capped by `maxDelayMs`.
 */
export function retryDelayMs(policy: RetryPolicy, attempt: number, retryAfterMs: number | null, random: () => number = Math.random): number {
  if (retryAfterMs !== null) return retryAfterMs;
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
