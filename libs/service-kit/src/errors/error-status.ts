import type * as core from '@qim/store-core';
import type { StoreError } from '@qim/store-core';
import type * as service from './service-errors';

/** The literal code of every `StoreError` class a module exports (the abstract base's `string` left out). */
type CodesOf<M> = {
  [K in keyof M]: M[K] extends abstract new (...args: never[]) => infer E
    ? E extends StoreError
      ? string extends E['code']
        ? never
        : E['code']
      : never
    : never;
}[keyof M];

/** Codes the HTTP layer itself answers (framework request errors, anything unknown). */
type HttpCode = 'PAYLOAD_TOO_LARGE' | 'UNSUPPORTED_MEDIA_TYPE' | 'INTERNAL';

/**
 * Every code an answer can carry: the codes of store-core's and service-kit's error classes (found
 * from their exports, so a new error class is a new member) and the HTTP layer's own.
 */
export type ErrorCode = CodesOf<typeof core> | CodesOf<typeof service> | HttpCode;

/**
 * The one table from stable error codes to HTTP status. Domain errors carry no status; only this
 * table decides. It must name every `ErrorCode` (a code without a status does not compile); a
 * code that is not an `ErrorCode` at run time is answered 500 (never guessed into a success).
 */
export const ERROR_STATUS = Object.freeze({
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
} as const satisfies Record<ErrorCode, number>);

/** Every error code, in the table's order. */
export const ERROR_CODES = Object.freeze(Object.keys(ERROR_STATUS) as ErrorCode[]);

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_STATUS, code);
}

/** Codes that tell a device to drop its cursor and resync. */
export const RESYNC_CODES: ReadonlySet<string> = new Set<ErrorCode>(['CURSOR_EXPIRED', 'EPOCH_MISMATCH']);

export function statusOfCode(code: string): number {
  return isErrorCode(code) ? ERROR_STATUS[code] : 500;
}
