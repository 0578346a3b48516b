import { UnavailableError } from '@qim/store-core';

/**
 * `call`'s result, or `UnavailableError` naming `what` once `at` (Date.now() ms) has passed with the
 * call still pending. The call itself goes on (its store bounds it: e.g. the Redis command timeout);
 * only its answer is no longer awaited, and a late rejection is swallowed.
 */
export function beforeDeadline<T>(call: Promise<T>, at: number, what: string): Promise<T> {
  const ms = at - Date.now();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new UnavailableError(`${what}: the store did not answer in time (${Math.max(0, ms)} ms left when it was called)`)),
      Math.max(0, ms),
    );
  });
  call.catch(() => undefined);
  return Promise.race([call, late]).finally(() => clearTimeout(timer));
}
