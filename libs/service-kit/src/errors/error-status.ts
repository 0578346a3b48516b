/**
 * The one table from stable error codes to HTTP status. Domain errors carry no status; only this
 * table decides. Codes not listed are answered 500 (never guessed into a success).
 */
export const ERROR_STATUS: Readonly<Record<string, number>> = Object.freeze({
  INVALID_INPUT: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  INVALID_STATE: 409,
  CURSOR_EXPIRED: 410,
  EPOCH_MISMATCH: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  FANOUT_LIMIT: 422,
  CORRUPT_ENTRY: 500,
  CODEC_ERROR: 500,
  INVARIANT_VIOLATION: 500,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  FRONTIER_GAP: 503,
});

/** Codes that tell a device to drop its cursor and resync. */
export const RESYNC_CODES: ReadonlySet<string> = new Set(['CURSOR_EXPIRED', 'EPOCH_MISMATCH']);

export function statusOfCode(code: string): number {
  return ERROR_STATUS[code] ?? 500;
}
