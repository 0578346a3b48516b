import type { StoreError } from '@qim/store-core';

type ErrorClass<E extends StoreError> = abstract new (...args: never[]) => E;

/**
 * Awaits `p` and asserts it rejected with exactly the domain error `cls` (class and literal `code`).
 * Returns the error for further checks.
 */
export async function expectStoreError<E extends StoreError>(p: Promise<unknown>, cls: ErrorClass<E>): Promise<E> {
  let outcome: { ok: true; value: unknown } | { ok: false; error: unknown };
  try {
    outcome = { ok: true, value: await p };
  } catch (error) {
    outcome = { ok: false, error };
  }
  if (outcome.ok) throw new Error(`expected ${cls.name}, but the call resolved`);
  const error = outcome.error;
  if (!(error instanceof cls)) {
    const got = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    throw new Error(`expected ${cls.name}, got ${got}`);
  }
  return error;
}
