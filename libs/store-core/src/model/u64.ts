import { InvariantViolationError } from '../errors/domain-errors';

/**
 * Unsigned 64-bit values (seqs, offsets, ms timestamps, HLC) are `bigint`. The store only ever
 * writes values with bit 63 clear, so a u64 is also a valid non-negative signed 64-bit integer
 * (CQL `bigint`). One conversion function per direction; a violation is `InvariantViolationError`
 * and nothing is written.
 */
export const U63_MAX = (1n << 63n) - 1n;

/** Asserts 0 ≤ v ≤ 2^63−1 and returns v. */
export function assertU64(v: bigint, what = 'u64'): bigint {
  if (typeof v !== 'bigint' || v < 0n || v > U63_MAX) {
    throw new InvariantViolationError(`${what} out of range (bit 63 must be clear): ${String(v)}`);
  }
  return v;
}

/** u64 → the signed 64-bit value written to CQL `bigint` (identical bits, bit 63 clear). */
export function u64ToI64(v: bigint, what = 'u64'): bigint {
  return assertU64(v, what);
}

/** CQL `bigint` → u64. A negative stored value is corrupt data. */
export function u64FromI64(v: bigint | number, what = 'u64'): bigint {
  const b = typeof v === 'bigint' ? v : BigInt(v);
  return assertU64(b, what);
}

/** u64 → decimal string (Redis arguments and values). */
export function u64ToDecimal(v: bigint, what = 'u64'): string {
  return assertU64(v, what).toString(10);
}

/** Decimal string (only `0` or `[1-9][0-9]*`) → u64; anything else is `InvariantViolationError`. */
export function u64FromDecimal(s: string, what = 'u64'): bigint {
  if (!/^(0|[1-9][0-9]{0,18})$/.test(s)) throw new InvariantViolationError(`${what} is not a u64 decimal: ${JSON.stringify(s)}`);
  return assertU64(BigInt(s), what);
}
