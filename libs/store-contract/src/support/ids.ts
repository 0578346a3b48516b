import { randomBytes } from 'node:crypto';
import type { Id128 } from '@qim/store-core';

/** A fresh random id (every case uses its own tenant, users and conversations, so backends may share storage). */
export function randomId(): Id128 {
  return randomBytes(16).toString('hex') as Id128;
}

/** `n` fresh random ids. */
export function randomIds(n: number): Id128[] {
  return Array.from({ length: n }, randomId);
}

/** A random integer in [lo, hi]. */
export function randomInt(lo: number, hi: number): number {
  return lo + Math.floor(Math.random() * (hi - lo + 1));
}
