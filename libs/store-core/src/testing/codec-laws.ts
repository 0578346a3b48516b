import fc from 'fast-check';
import { CodecError } from '../errors/domain-errors';
import type { CodecFailure } from '../errors/domain-errors';

/** A codec under test: valid values and its two functions. */
export interface CodecUnderTest<T> {
  readonly arb: fc.Arbitrary<T>;
  readonly encode: (value: T) => Buffer;
  readonly decode: (bytes: Uint8Array) => T;
  readonly magic: string;
}

const NUM_RUNS = 150;

/** The `CodecError` failure `fn` throws; fails the test when it throws anything else or nothing. */
export function codecFailureOf(fn: () => unknown): CodecFailure {
  try {
    fn();
  } catch (e) {
    if (e instanceof CodecError) return e.failure;
    throw e;
  }
  throw new Error('expected a CodecError, but decoding succeeded');
}

/** Prefix lengths to try: all of them for short encodings, else the header area plus an even spread. */
function prefixLengths(length: number): number[] {
  if (length <= 256) return Array.from({ length }, (_, i) => i);
  const picks = new Set<number>([0, 1, 2, 3, 4, 5, length - 1]);
  for (let i = 0; i < 120; i++) picks.add(Math.floor((i * length) / 120));
  return [...picks].filter((n) => n < length);
}

/**
 * The properties every codec must have: exact round trip both ways, every strict prefix TRUNCATED,
 * trailing bytes TRAILING_BYTES, other versions UNKNOWN_VERSION, other magics BAD_MAGIC, and any
 * single-byte corruption either refused with a `CodecError` or decoded to a value that re-encodes
 * to exactly the corrupted bytes (no second encoding of any value).
 */
export function describeCodecLaws<T>(name: string, c: CodecUnderTest<T>): void {
  describe(`${name} codec laws`, () => {
    it('round-trips: decode(encode(x)) equals x and encode(decode(b)) === b', () => {
      fc.assert(
        fc.property(c.arb, (x) => {
          const bytes = c.encode(x);
          const back = c.decode(bytes);
          expect(back).toStrictEqual(x);
          expect(c.encode(back).equals(bytes)).toBe(true);
        }),
        { numRuns: NUM_RUNS },
      );
    });

    it('starts with the magic and version 1', () => {
      fc.assert(
        fc.property(c.arb, (x) => {
          expect(c.encode(x).subarray(0, 4).toString('latin1')).toBe(`${c.magic}\x01`);
        }),
        { numRuns: 20 },
      );
    });

    it('refuses every strict prefix with TRUNCATED', () => {
      fc.assert(
        fc.property(c.arb, (x) => {
          const bytes = c.encode(x);
          for (const n of prefixLengths(bytes.length)) expect(codecFailureOf(() => c.decode(bytes.subarray(0, n)))).toBe('TRUNCATED');
        }),
        { numRuns: 40 },
      );
    });

    it('refuses appended bytes with TRAILING_BYTES', () => {
      fc.assert(
        fc.property(c.arb, fc.uint8Array({ minLength: 1, maxLength: 8 }), (x, extra) => {
          expect(codecFailureOf(() => c.decode(Buffer.concat([c.encode(x), extra])))).toBe('TRAILING_BYTES');
        }),
        { numRuns: NUM_RUNS },
      );
    });

    it('refuses any other version with UNKNOWN_VERSION', () => {
      fc.assert(
        fc.property(
          c.arb,
          fc.integer({ min: 0, max: 255 }).filter((v) => v !== 1),
          (x, version) => {
            const bytes = c.encode(x);
            bytes[3] = version;
            expect(codecFailureOf(() => c.decode(bytes))).toBe('UNKNOWN_VERSION');
          },
        ),
        { numRuns: NUM_RUNS },
      );
    });

    it('refuses any other magic with BAD_MAGIC (also when short)', () => {
      fc.assert(
        fc.property(c.arb, fc.integer({ min: 0, max: 2 }), fc.integer({ min: 1, max: 255 }), (x, at, delta) => {
          const bytes = c.encode(x);
          bytes[at] = (bytes[at]! + delta) & 0xff;
          expect(codecFailureOf(() => c.decode(bytes))).toBe('BAD_MAGIC');
          expect(codecFailureOf(() => c.decode(bytes.subarray(0, at + 1)))).toBe('BAD_MAGIC');
        }),
        { numRuns: NUM_RUNS },
      );
    });

    it('never accepts a second encoding: a corrupted byte is refused or re-encodes identically', () => {
      fc.assert(
        fc.property(c.arb, fc.nat(), fc.integer({ min: 1, max: 255 }), (x, pick, delta) => {
          const bytes = c.encode(x);
          const at = 4 + (pick % (bytes.length - 4));
          bytes[at] = (bytes[at]! + delta) & 0xff;
          let decoded: T;
          try {
            decoded = c.decode(bytes);
          } catch (e) {
            expect(e).toBeInstanceOf(CodecError);
            return;
          }
          expect(c.encode(decoded).equals(bytes)).toBe(true);
        }),
        { numRuns: 300 },
      );
    });
  });
}
