import { InvalidInputError } from '../errors/domain-errors';
import { isId128 } from '../model/ids';
import type { Id128 } from '../model/ids';
import { assertU64 } from '../model/u64';
import { strictUtf8 } from './utf8';

/**
 * Append-only big-endian writer shared by every codec. Each method validates its value first, so an
 * encoder can never emit bytes its decoder would refuse: integers out of range, malformed ids,
 * strings that are not well-formed Unicode and oversized fields → `InvalidInputError`; a u64 with
 * bit 63 set → `InvariantViolationError` (`assertU64`). Internal to store-core.
 */
export class ByteWriter {
  private readonly chunks: Buffer[] = [];

  constructor(private readonly codec: string) {}

  /** 3-byte ASCII magic followed by the u8 version. */
  header(magic: string, version: number): this {
    if (!/^[\x20-\x7e]{3}$/.test(magic)) throw this.invalid('magic', 'must be 3 printable ASCII characters');
    this.chunks.push(Buffer.from(magic, 'ascii'));
    return this.u8(version, 'version');
  }

  u8(v: number, what: string): this {
    const b = Buffer.allocUnsafe(1);
    b.writeUInt8(this.int(v, 0xff, what));
    this.chunks.push(b);
    return this;
  }

  u16(v: number, what: string): this {
    const b = Buffer.allocUnsafe(2);
    b.writeUInt16BE(this.int(v, 0xffff, what));
    this.chunks.push(b);
    return this;
  }

  u32(v: number, what: string): this {
    const b = Buffer.allocUnsafe(4);
    b.writeUInt32BE(this.int(v, 0xffff_ffff, what));
    this.chunks.push(b);
    return this;
  }

  /** A u64 (bit 63 clear, checked with `assertU64`). */
  u64(v: bigint, what: string): this {
    const b = Buffer.allocUnsafe(8);
    b.writeBigUInt64BE(assertU64(v, `${this.codec}.${what}`));
    this.chunks.push(b);
    return this;
  }

  /** 0 = false, 1 = true; anything but a boolean is refused. */
  bool(v: boolean, what: string): this {
    if (typeof v !== 'boolean') throw this.invalid(what, 'must be a boolean');
    return this.u8(v ? 1 : 0, what);
  }

  /** 16 raw bytes of a canonical id. */
  id(v: Id128, what: string): this {
    if (!isId128(v)) throw this.invalid(what, 'must be 32 lowercase hex characters');
    this.chunks.push(Buffer.from(v, 'hex'));
    return this;
  }

  /** Exactly `length` raw bytes, no length prefix (digests). */
  fixed(v: Uint8Array, length: number, what: string): this {
    if (!(v instanceof Uint8Array) || v.length !== length) throw this.invalid(what, `must be exactly ${length} bytes`);
    this.chunks.push(Buffer.from(v));
    return this;
  }

  /** u16 byte length + UTF-8. The string must be well-formed (no lone surrogates) and fit `maxBytes`. */
  string(v: string, maxBytes: number, what: string): this {
    if (typeof v !== 'string') throw this.invalid(what, 'must be a string');
    const bytes = Buffer.from(v, 'utf8');
    if (strictUtf8.decode(bytes) !== v) throw this.invalid(what, 'must be well-formed Unicode');
    if (bytes.length > Math.min(maxBytes, 0xffff)) throw this.invalid(what, `longer than ${maxBytes} UTF-8 bytes`);
    this.u16(bytes.length, `${what} length`);
    this.chunks.push(bytes);
    return this;
  }

  /** u32 byte length + the bytes (copied), at most `maxBytes`. */
  bytes(v: Uint8Array, maxBytes: number, what: string): this {
    if (!(v instanceof Uint8Array)) throw this.invalid(what, 'must be a Uint8Array');
    if (v.length > maxBytes) throw this.invalid(what, `longer than ${maxBytes} bytes`);
    this.u32(v.length, `${what} length`);
    this.chunks.push(Buffer.from(v));
    return this;
  }

  /** The encoding written so far, as one fresh buffer. */
  finish(): Buffer {
    return Buffer.concat(this.chunks);
  }

  /** An `InvalidInputError` naming this codec and field. */
  invalid(what: string, why: string): InvalidInputError {
    return new InvalidInputError(`${this.codec}: ${what} ${why}`);
  }

  private int(v: number, max: number, what: string): number {
    if (!Number.isSafeInteger(v) || v < 0 || v > max) throw this.invalid(what, `must be an integer in 0…${max}, got ${String(v)}`);
    return v;
  }
}
