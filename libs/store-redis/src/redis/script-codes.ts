import {
  ConflictError,
  CorruptEntryError,
  FrontierGapError,
  InvalidInputError,
  InvalidStateError,
  InvariantViolationError,
  NotFoundError,
} from '@qim/store-core';
import type { StoreError } from '@qim/store-core';

/**
 * The result codes of `lua/includes/result-codes.lua` (a spec parses that file and compares).
 * Every script reply starts with one of them.
 */
export const ScriptCode = {
  OK: 0,
  ALREADY: 1,
  NOT_FOUND: -1,
  CONFLICT: -2,
  INVALID_STATE: -3,
  CAS_LOST: -6,
  CORRUPT: -7,
  CURSOR_EXPIRED: -8,
  NEEDS_INSPECT: -9,
  INVALID_INPUT: -10,
  FRONTIER_GAP: -13,
  /** A cap would be exceeded (membership); the wrapper raises the caller's limit error. */
  OVER_LIMIT: -14,
} as const;

/** Lua constant name of each code (as in result-codes.lua). */
export const LUA_CODE_NAMES: Readonly<Record<keyof typeof ScriptCode, string>> = {
  OK: 'R_OK',
  ALREADY: 'R_ALREADY',
  NOT_FOUND: 'E_NOT_FOUND',
  CONFLICT: 'E_CONFLICT',
  INVALID_STATE: 'E_INVALID_STATE',
  CAS_LOST: 'E_CAS_LOST',
  CORRUPT: 'E_CORRUPT',
  CURSOR_EXPIRED: 'E_CURSOR_EXPIRED',
  NEEDS_INSPECT: 'E_NEEDS_INSPECT',
  INVALID_INPUT: 'E_INVALID_INPUT',
  FRONTIER_GAP: 'E_FRONTIER_GAP',
  OVER_LIMIT: 'E_OVER_LIMIT',
};

const ERRORS: Readonly<Record<number, new (message: string) => StoreError>> = {
  [ScriptCode.NOT_FOUND]: NotFoundError,
  [ScriptCode.CONFLICT]: ConflictError,
  [ScriptCode.INVALID_STATE]: InvalidStateError,
  [ScriptCode.CORRUPT]: CorruptEntryError,
  [ScriptCode.INVALID_INPUT]: InvalidInputError,
  [ScriptCode.FRONTIER_GAP]: FrontierGapError,
};

/**
 * The domain error for a negative script code (the same class Memory raises in that situation).
 * Codes that are not errors for the caller (CAS lost, needs inspect, cursor expired with its
 * boundary) are handled by the wrappers before they get here; reaching this with one is a bug.
 */
export function errorForCode(code: number, context: string): StoreError {
  const cls = ERRORS[code];
  if (cls === undefined) return new InvariantViolationError(`${context}: unexpected script result code ${code}`);
  return new cls(`${context} (redis code ${code})`);
}
