import { QimError } from '@qim/client';

/** The code of any failure (a `QimError`'s code, else the error's name). */
export function codeOf(err: unknown): string {
  if (err instanceof QimError) return err.code;
  return err instanceof Error ? err.name : 'UNKNOWN';
}

/** Failures worth repeating the same request for: the outcome is unknown or the service was unavailable. */
export function isRetryable(err: unknown): boolean {
  if (!(err instanceof QimError)) return false;
  return err.status === null ? err.code === 'TRANSPORT' || err.code === 'TIMEOUT' : err.status === 503 || err.status >= 500;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
