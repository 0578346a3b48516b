import { CodecError } from '../errors/domain-errors';
import type { CodecFailure } from '../errors/domain-errors';
import type { Id128 } from '../model/ids';
import { U63_MAX } from '../model/u64';
import { strictUtf8 } from './utf8';

/**
 * Sequential big-endian reader shared by every codec. Every refusal is a `CodecError` naming the
 * codec: missing bytes → TRUNCATED, a value outside its domain (bit 63 set, unknown enum, boolean
 * other than 0/1, malformed UTF-8, a size above its cap) → OUT_OF_RANGE, bytes left over after the
 * last field (`end`) → TRAILING_BYTES. Returned byte arrays are copies (never views of the input).
 * Internal to store-core.
 */
export class ByteReader {
  private readonly buf: Buffer;
  private pos = 0;

  constructor(
    readonly codec: string,
    bytes: Uint8Array,
  ) {
    if (!(bytes instanceof Uint8Array)) throw new CodecError(codec, 'TRUNCATED', 'input is not a byte array');
    this.buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** Bytes not read yet. */
  get remaining(): number {
    return this.buf.length - this.pos;
  }

  /**
   * Checks the 3-byte magic (mismatch → BAD_MAGIC, even on a short input) and the version byte
   * (not in `versions` → UNKNOWN_VERSION). Returns the version.
   */
  header(magic: string, versions: readonly number[]): number {
    const expected = Buffer.from(magic, 'ascii');
    const seen = this.buf.subarray(0, Math.min(3, this.buf.length));
    if (!seen.equals(expected.subarray(0, seen.length))) this.fail('BAD_MAGIC', `expected ${JSON.stringify(magic)}`);
    this.need(3, 'magic');
    this.pos = 3;
    const version = this.u8('version');
    if (!versions.includes(version)) this.fail('UNKNOWN_VERSION', `version ${version}`);
    return version;
  }

  u8(what: string): number {
    this.need(1, what);
    return this.buf.readUInt8(this.pos++);
  }

  u16(what: string): number {
    this.need(2, what);
    const v = this.buf.readUInt16BE(this.pos);
    this.pos += 2;
    return v;
  }

  u32(what: string): number {
    this.need(4, what);
    const v = this.buf.readUInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  /** A u64; bit 63 set → OUT_OF_RANGE. */
  u64(what: string): bigint {
    this.need(8, what);
    const v = this.buf.readBigUInt64BE(this.pos);
    this.pos += 8;
    if (v > U63_MAX) this.fail('OUT_OF_RANGE', `${what} has bit 63 set`);
    return v;
  }

  /** A u32 in `min…max`, else OUT_OF_RANGE. */
  u32In(min: number, max: number, what: string): number {
    const v = this.u32(what);
    if (v < min || v > max) this.fail('OUT_OF_RANGE', `${what} ${v} not in ${min}…${max}`);
    return v;
  }

  bool(what: string): boolean {
    const v = this.u8(what);
    if (v > 1) this.fail('OUT_OF_RANGE', `${what} is ${v}, not 0 or 1`);
    return v === 1;
  }

  id(what: string): Id128 {
    this.need(16, what);
    const v = this.buf.toString('hex', this.pos, this.pos + 16) as Id128;
    this.pos += 16;
    return v;
  }

  /** Exactly `length` raw bytes (copied). */
  fixed(length: number, what: string): Uint8Array {
    this.need(length, what);
    const v = new Uint8Array(this.buf.subarray(this.pos, this.pos + length));
    this.pos += length;
    return v;
  }

  /** u16 byte length (≤ `maxBytes`, else OUT_OF_RANGE) + well-formed UTF-8 (else OUT_OF_RANGE). */
  string(maxBytes: number, what: string): string {
    const length = this.u16(`${what} length`);
    if (length > maxBytes) this.fail('OUT_OF_RANGE', `${what} is ${length} bytes, more than ${maxBytes}`);
    this.need(length, what);
    const raw = this.buf.subarray(this.pos, this.pos + length);
    this.pos += length;
    try {
      return strictUtf8.decode(raw);
    } catch {
      return this.fail('OUT_OF_RANGE', `${what} is not valid UTF-8`);
    }
  }

  /** u32 byte length (≤ `maxBytes`, else OUT_OF_RANGE) + the bytes (copied). */
  bytes(maxBytes: number, what: string): Uint8Array {
    const length = this.u32(`${what} length`);
    if (length > maxBytes) this.fail('OUT_OF_RANGE', `${what} is ${length} bytes, more than ${maxBytes}`);
    return this.fixed(length, what);
  }

  /** Throws TRUNCATED unless `count` items of at least `minItemBytes` each can still follow. */
  needItems(count: number, minItemBytes: number, what: string): void {
    if (count * minItemBytes > this.remaining) this.fail('TRUNCATED', `${count} ${what} cannot fit in ${this.remaining} bytes`);
  }

  /** Exact length: anything left → TRAILING_BYTES. */
  end(): void {
    if (this.remaining !== 0) this.fail('TRAILING_BYTES', `${this.remaining} bytes after the last field`);
  }

  fail(failure: CodecFailure, detail: string): never {
    throw new CodecError(this.codec, failure, detail);
  }

  private need(n: number, what: string): void {
    if (this.remaining < n) this.fail('TRUNCATED', `${what} needs ${n} bytes, ${this.remaining} left`);
  }
}
