import { CorruptEntryError, InvariantViolationError, assertU64 } from '@qim/store-core';

/**
 * How u64 values (seqs, offsets, ms timestamps) travel to and from Lua: exactly 16 lowercase hex
 * digits. Lua numbers are doubles, exact only below 2^53, so scripts compare these strings in two
 * exact 32-bit halves (`lua/includes/hex-u64.lua`) and never do arithmetic on a u64.
 */
const HEX16 = /^[0-9a-f]{16}$/;

/** u64 (bit 63 clear) → 16 hex digits. Out of range → `InvariantViolationError`, nothing is sent. */
export function u64ToHex16(v: bigint, what = 'u64'): string {
  return assertU64(v, what).toString(16).padStart(16, '0');
}

/** 16 stored hex digits → u64. Anything else (or bit 63 set) is stored damage → `CorruptEntryError`. */
export function u64FromHex16(s: string | Buffer, what = 'u64'): bigint {
  const text = typeof s === 'string' ? s : s.toString('latin1');
  if (!HEX16.test(text)) throw new CorruptEntryError(`${what}: stored value is not 16 hex digits: ${JSON.stringify(text)}`);
  const v = BigInt(`0x${text}`);
  if (v >> 63n !== 0n) throw new CorruptEntryError(`${what}: stored value has bit 63 set`);
  return v;
}

/** Highest ms value handed to Lua as a number (ZSET score, PEXPIREAT base): 2^52, beyond year 144 000. */
export const MAX_SCORE_MS = 1n << 52n;

/**
 * A ms value as a decimal ZSET score / physical-expiry base: exact below 2^52; larger values are
 * clamped to 2^52 (scores only order candidates; every exact comparison uses the hex form).
 */
export function msScore(ms: bigint): string {
  if (ms < 0n) throw new InvariantViolationError(`negative ms score: ${ms}`);
  return (ms > MAX_SCORE_MS ? MAX_SCORE_MS : ms).toString(10);
}
