import { InvalidInputError } from '../errors/domain-errors';

/**
 * A 16-byte identifier (u128) in its canonical text form: exactly 32 lowercase hex characters.
 * Stored as 16 raw bytes (CQL `blob`, codec bytes); never converted to a UUID or any other format.
 */
export type Id128 = string & { readonly __brand: 'Id128' };

const ID_RE = /^[0-9a-f]{32}$/;

/** True when `s` is the canonical 32-lowercase-hex form of an id. */
export function isId128(s: unknown): s is Id128 {
  return typeof s === 'string' && ID_RE.test(s);
}

/** Parses the canonical hex form; anything else (uppercase, wrong length, non-hex) is `InvalidInputError`. */
export function parseId128(s: string, field = 'id'): Id128 {
  if (!isId128(s)) throw new InvalidInputError(`${field} must be 32 lowercase hex characters`);
  return s;
}

/** The 16 stored bytes of an id. */
export function id128ToBytes(id: Id128): Buffer {
  return Buffer.from(id, 'hex');
}

/** Reads an id from exactly 16 bytes; any other length is `InvalidInputError`. */
export function id128FromBytes(bytes: Uint8Array): Id128 {
  if (bytes.length !== 16) throw new InvalidInputError(`id must be 16 bytes, got ${bytes.length}`);
  return Buffer.from(bytes.buffer, bytes.byteOffset, 16).toString('hex') as Id128;
}

/** Byte-wise comparison of two ids (the same order as their hex text and their stored blobs). */
export function compareId128(a: Id128, b: Id128): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
