/** What a 503 or 429 asks the client to wait before repeating, unless the error says otherwise (s). */
export const RETRY_AFTER_SECONDS = 1;

/** An error that knows how long its caller should wait before repeating (whole seconds ≥ 1). */
export interface RetryHint {
  readonly retryAfterSeconds: number;
}

/** Statuses that tell the client to come back later: each answer carries `Retry-After`. */
export const isRetryLaterStatus = (status: number): boolean => status === 503 || status === 429;

/** The `Retry-After` seconds of an error: its own hint when it is a whole number ≥ 1, else the default. */
export function retryAfterSecondsOf(err: unknown): number {
  const s = typeof err === 'object' && err !== null ? (err as Partial<RetryHint>).retryAfterSeconds : undefined;
  return typeof s === 'number' && Number.isSafeInteger(s) && s >= 1 ? s : RETRY_AFTER_SECONDS;
}
