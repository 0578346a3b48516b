import type { types } from 'cassandra-driver';
import { CorruptEntryError } from '@qim/store-core';

/**
 * Typed access to stored columns. Stored data that is missing, null where the schema requires a
 * value, or out of range is damage: every helper here throws `CorruptEntryError` (never a default).
 */
function cell(row: types.Row, col: string): unknown {
  return (row as unknown as Record<string, unknown>)[col];
}

/** A required u64 column (CQL bigint, bit 63 clear). */
export function reqU64(row: types.Row, col: string, what: string): bigint {
  const v = cell(row, col);
  if (typeof v !== 'bigint' || v < 0n) throw new CorruptEntryError(`${what}: column ${col} is ${v === null ? 'null' : String(v)}`);
  return v;
}

/** An optional u64 column: null stays null. */
export function optU64(row: types.Row, col: string, what: string): bigint | null {
  return cell(row, col) === null || cell(row, col) === undefined ? null : reqU64(row, col, what);
}

/** A required signed bigint column (sentinel-carrying columns such as the gap boundary). */
export function reqI64(row: types.Row, col: string, what: string): bigint {
  const v = cell(row, col);
  if (typeof v !== 'bigint') throw new CorruptEntryError(`${what}: column ${col} is ${v === null ? 'null' : typeof v}`);
  return v;
}

/** A required int column. */
export function reqInt(row: types.Row, col: string, what: string): number {
  const v = cell(row, col);
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new CorruptEntryError(`${what}: column ${col} is ${v === null ? 'null' : typeof v}`);
  return v;
}

/** An optional int column. */
export function optInt(row: types.Row, col: string, what: string): number | null {
  return cell(row, col) === null || cell(row, col) === undefined ? null : reqInt(row, col, what);
}

/** A required blob column. */
export function reqBlob(row: types.Row, col: string, what: string): Buffer {
  const v = cell(row, col);
  if (!Buffer.isBuffer(v)) throw new CorruptEntryError(`${what}: column ${col} is ${v === null ? 'null' : typeof v}`);
  return v;
}

/** The remaining TTL (seconds) a `TTL(col) AS ttl` selection returned; null = no TTL. */
export function ttlOf(row: types.Row, col = 'ttl'): number | null {
  const v = cell(row, col);
  return typeof v === 'number' ? v : null;
}

/** Highest write timestamp (µs) among the `WRITETIME(…)` columns of a row (nulls ignored); 0n when none. */
export function maxWritetime(row: types.Row | null): bigint {
  if (row === null) return 0n;
  let max = 0n;
  for (const key of row.keys()) {
    const v = cell(row, key);
    if (typeof v === 'bigint' && v > max) max = v;
  }
  return max;
}
