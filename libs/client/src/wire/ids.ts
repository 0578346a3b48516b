import { randomBytes } from 'node:crypto';
import { QimArgumentError } from '../errors/qim-error';
import type { Id128 } from '../model/id128';

export type { Id128 } from '../model/id128';

const ID128 = /^[0-9a-f]{32}$/;

/** True when `s` is an id in wire form. */
export function isId128(s: unknown): s is Id128 {
  return typeof s === 'string' && ID128.test(s);
}

/** A fresh random id, e.g. a client message id (128 random bits). */
export function newId128(): Id128 {
  return randomBytes(16).toString('hex');
}

/** Refuses a malformed id before anything is sent. */
export function requireId128(what: string, s: unknown): Id128 {
  if (!isId128(s)) throw new QimArgumentError(`${what} must be 32 lowercase hex characters, got ${JSON.stringify(s)}`);
  return s;
}

/** Refuses a value that is not a u64 below 2^63 (the services' bound) before anything is sent. */
export function requireU64(what: string, v: bigint): bigint {
  if (typeof v !== 'bigint' || v < 0n || v >= 1n << 63n) throw new QimArgumentError(`${what} must be a bigint in [0, 2^63), got ${String(v)}`);
  return v;
}

/** Refuses a number that is not an integer in `[min, max]`. */
export function requireInt(what: string, v: number, min: number, max: number): number {
  if (!Number.isInteger(v) || v < min || v > max) throw new QimArgumentError(`${what} must be an integer in [${min}, ${max}], got ${String(v)}`);
  return v;
}
