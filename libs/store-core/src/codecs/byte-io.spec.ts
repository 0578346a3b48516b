import { CodecError, InvalidInputError, InvariantViolationError } from '../errors/domain-errors';
import type { Id128 } from '../model/ids';
import { ByteReader } from './byte-reader';
import { ByteWriter } from './byte-writer';
import { codecFailureOf } from '../testing/codec-laws';

const reader = (hex: string) => new ByteReader('t', Buffer.from(hex, 'hex'));
const written = (f: (w: ByteWriter) => void) => {
  const w = new ByteWriter('t');
  f(w);
  return w.finish().toString('hex');
};

describe('ByteWriter', () => {
  it('writes big-endian integers, ids, booleans, strings and byte strings', () => {
    const hex = written((w) =>
      w
        .header('ABC', 1)
        .u8(0xfe, 'a')
        .u16(0x0102, 'b')
        .u32(0x01020304, 'c')
        .u64(0x0102030405060708n, 'd')
        .bool(true, 'e')
        .bool(false, 'f')
        .id('00112233445566778899aabbccddeeff' as Id128, 'g')
        .string('é', 10, 'h')
        .bytes(Uint8Array.of(9, 8), 10, 'i'),
    );
    expect(hex).toBe(
      '41424301' + 'fe' + '0102' + '01020304' + '0102030405060708' + '01' + '00' + '00112233445566778899aabbccddeeff' + '0002c3a9' + '000000020908',
    );
  });

  it('refuses integers that are out of range or not integers (InvalidInputError)', () => {
    const w = new ByteWriter('t');
    expect(() => w.u8(256, 'x')).toThrow(InvalidInputError);
    expect(() => w.u16(-1, 'x')).toThrow(InvalidInputError);
    expect(() => w.u32(2 ** 32, 'x')).toThrow(InvalidInputError);
    expect(() => w.u32(1.5, 'x')).toThrow(InvalidInputError);
    expect(() => w.u32(Number.NaN, 'x')).toThrow(InvalidInputError);
  });

  it('refuses a u64 with bit 63 set or negative (InvariantViolationError) and accepts 2^63−1', () => {
    const w = new ByteWriter('t');
    expect(() => w.u64(1n << 63n, 'x')).toThrow(InvariantViolationError);
    expect(() => w.u64(-1n, 'x')).toThrow(InvariantViolationError);
    expect(written((x) => x.u64((1n << 63n) - 1n, 'x'))).toBe('7fffffffffffffff');
  });

  it('refuses malformed ids, non-booleans, wrong fixed lengths and bad magics', () => {
    const w = new ByteWriter('t');
    expect(() => w.id('00112233445566778899AABBCCDDEEFF' as Id128, 'x')).toThrow(InvalidInputError);
    expect(() => w.id('0011' as Id128, 'x')).toThrow(InvalidInputError);
    expect(() => w.bool(1 as unknown as boolean, 'x')).toThrow(InvalidInputError);
    expect(() => w.fixed(new Uint8Array(31), 32, 'x')).toThrow(InvalidInputError);
    expect(() => w.header('AB', 1)).toThrow(InvalidInputError);
  });

  it('refuses strings that are not well-formed Unicode or too long, bytes that are too long', () => {
    const w = new ByteWriter('t');
    expect(() => w.string('a\ud800b', 100, 'x')).toThrow(InvalidInputError);
    expect(() => w.string('\udc00', 100, 'x')).toThrow(InvalidInputError);
    expect(() => w.string('ééé', 5, 'x')).toThrow(InvalidInputError);
    expect(() => w.bytes(new Uint8Array(6), 5, 'x')).toThrow(InvalidInputError);
    expect(written((x) => x.string('😀', 4, 'x'))).toBe('0004f09f9880');
  });
});

describe('ByteReader', () => {
  it('reads what the writer wrote', () => {
    const r = reader('41424301fe0102010203040102030405060708010000112233445566778899aabbccddeeff0002c3a9000000020908');
    expect(r.header('ABC', [1])).toBe(1);
    expect([r.u8('a'), r.u16('b'), r.u32('c'), r.u64('d'), r.bool('e'), r.bool('f')]).toEqual([0xfe, 0x0102, 0x01020304, 0x0102030405060708n, true, false]);
    expect(r.id('g')).toBe('00112233445566778899aabbccddeeff');
    expect(r.string(10, 'h')).toBe('é');
    expect(r.bytes(10, 'i')).toStrictEqual(Uint8Array.of(9, 8));
    expect(() => r.end()).not.toThrow();
  });

  it('classifies header problems: BAD_MAGIC (even when short), TRUNCATED, UNKNOWN_VERSION', () => {
    expect(codecFailureOf(() => reader('').header('ABC', [1]))).toBe('TRUNCATED');
    expect(codecFailureOf(() => reader('4142').header('ABC', [1]))).toBe('TRUNCATED');
    expect(codecFailureOf(() => reader('414243').header('ABC', [1]))).toBe('TRUNCATED');
    expect(codecFailureOf(() => reader('42').header('ABC', [1]))).toBe('BAD_MAGIC');
    expect(codecFailureOf(() => reader('41424401').header('ABC', [1]))).toBe('BAD_MAGIC');
    expect(codecFailureOf(() => reader('41424302').header('ABC', [1]))).toBe('UNKNOWN_VERSION');
  });

  it('refuses u64 with bit 63 set and booleans other than 0/1 (OUT_OF_RANGE)', () => {
    expect(codecFailureOf(() => reader('8000000000000000').u64('x'))).toBe('OUT_OF_RANGE');
    expect(codecFailureOf(() => reader('ffffffffffffffff').u64('x'))).toBe('OUT_OF_RANGE');
    expect(reader('7fffffffffffffff').u64('x')).toBe((1n << 63n) - 1n);
    expect(codecFailureOf(() => reader('02').bool('x'))).toBe('OUT_OF_RANGE');
    expect(codecFailureOf(() => reader('00000005').u32In(1, 4, 'x'))).toBe('OUT_OF_RANGE');
  });

  it.each([
    ['lone continuation byte', '000180'],
    ['overlong NUL', '0002c080'],
    ['encoded surrogate', '0003eda080'],
    ['above U+10FFFF', '0004f4908080'],
    ['cut multi-byte sequence', '0001c3'],
  ])('refuses malformed UTF-8 (%s) with OUT_OF_RANGE', (_, hex) => {
    expect(codecFailureOf(() => reader(hex).string(100, 'x'))).toBe('OUT_OF_RANGE');
  });

  it('keeps a leading byte-order mark as text (so re-encoding is byte-identical)', () => {
    const s = reader('0003efbbbf').string(10, 'x');
    expect(s).toBe('\ufeff');
    expect(written((w) => w.string(s, 10, 'x'))).toBe('0003efbbbf');
  });

  it('refuses declared sizes above the cap (OUT_OF_RANGE) and missing bytes (TRUNCATED)', () => {
    expect(codecFailureOf(() => reader('0005616263').string(4, 'x'))).toBe('OUT_OF_RANGE');
    expect(codecFailureOf(() => reader('00000005').bytes(4, 'x'))).toBe('OUT_OF_RANGE');
    expect(codecFailureOf(() => reader('0003616263').string(2, 'x'))).toBe('OUT_OF_RANGE');
    expect(codecFailureOf(() => reader('00000004010203').bytes(10, 'x'))).toBe('TRUNCATED');
    expect(codecFailureOf(() => reader('00').id('x'))).toBe('TRUNCATED');
    expect(codecFailureOf(() => reader('00').needItems(1, 2, 'x'))).toBe('TRUNCATED');
  });

  it('refuses leftover bytes at the end (TRAILING_BYTES)', () => {
    const r = reader('0102');
    r.u8('x');
    expect(codecFailureOf(() => r.end())).toBe('TRAILING_BYTES');
  });

  it('returns copies, never views of the input', () => {
    const input = Buffer.from('00000002aabb', 'hex');
    const out = new ByteReader('t', input).bytes(10, 'x');
    input[4] = 0;
    expect(out).toStrictEqual(Uint8Array.of(0xaa, 0xbb));
  });

  it('reads from a view with a non-zero byte offset', () => {
    const backing = Buffer.from('ff0a0b', 'hex');
    expect(new ByteReader('t', backing.subarray(1)).u16('x')).toBe(0x0a0b);
  });

  it('names the codec in its errors', () => {
    expect(() => new ByteReader('my-codec', new Uint8Array(0)).u8('x')).toThrow(new CodecError('my-codec', 'TRUNCATED', 'x needs 1 bytes, 0 left'));
  });
});
