import * as core from '@qim/store-core';
import { StoreError } from '@qim/store-core';
import { ERROR_CODES, ERROR_STATUS, statusOfCode } from './error-status';
import * as service from './service-errors';

/** One instance of every StoreError class a module exports (constructors get harmless arguments). */
function storeErrorsOf(mod: Record<string, unknown>): StoreError[] {
  return Object.values(mod)
    .filter((v): v is new (...args: unknown[]) => StoreError => typeof v === 'function' && v.prototype instanceof StoreError)
    .map((C) => new C('probe', 'probe', 'probe'));
}

describe('ERROR_STATUS', () => {
  it('lists every code with its status (a change here is a change of the public API)', () => {
    expect(ERROR_STATUS).toEqual({
      INVALID_INPUT: 400,
      UNAUTHORIZED: 401,
      FORBIDDEN: 403,
      NOT_FOUND: 404,
      CONFLICT: 409,
      INVALID_STATE: 409,
      CURSOR_EXPIRED: 410,
      EPOCH_MISMATCH: 410,
      PAYLOAD_TOO_LARGE: 413,
      BATCH_TOO_LARGE: 413,
      UNSUPPORTED_MEDIA_TYPE: 415,
      FANOUT_LIMIT: 422,
      CORRUPT_ENTRY: 500,
      CODEC_ERROR: 500,
      INVARIANT_VIOLATION: 500,
      INTERNAL: 500,
      UNAVAILABLE: 503,
      FRONTIER_GAP: 503,
    });
    expect(ERROR_CODES).toEqual(Object.keys(ERROR_STATUS));
  });

  it('has a status for the code of every error class of store-core and service-kit', () => {
    const errors = [...storeErrorsOf(core), ...storeErrorsOf(service)];
    expect(errors.length).toBeGreaterThanOrEqual(15);
    for (const e of errors) expect([e.constructor.name, Object.hasOwn(ERROR_STATUS, e.code)]).toEqual([e.constructor.name, true]);
  });

  it('answers 500 for a code it does not know (never a success or a client error)', () => {
    expect(statusOfCode('SOMETHING_NEW')).toBe(500);
    expect(statusOfCode('toString')).toBe(500);
  });
});
