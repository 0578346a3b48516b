import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface GoldenFile {
  readonly codec: string;
  readonly magic: string;
  readonly version: number;
  readonly vectors: Record<string, string>;
}

/** Reads `codecs/golden/<codec>.json`. */
export function loadGolden(codec: string): GoldenFile {
  return JSON.parse(readFileSync(join(__dirname, '..', 'codecs', 'golden', `${codec}.json`), 'utf8')) as GoldenFile;
}

/**
 * Golden vectors: every sample encodes to exactly its committed hex and the hex decodes to exactly
 * the sample; the file and the samples name the same vectors.
 */
export function describeGolden<T>(codec: string, samples: Record<string, T>, encode: (value: T) => Buffer, decode: (bytes: Uint8Array) => T): void {
  describe(`${codec} golden vectors`, () => {
    const golden = loadGolden(codec);

    it('covers exactly the samples, under this codec name and version 1', () => {
      expect(golden.codec).toBe(codec);
      expect(golden.version).toBe(1);
      expect(Object.keys(golden.vectors).sort()).toEqual(Object.keys(samples).sort());
    });

    it.each(Object.keys(samples))('%s: encode === golden, decode(golden) equals the sample', (name) => {
      const hex = golden.vectors[name]!;
      expect(hex.startsWith(Buffer.from(golden.magic + '\x01', 'latin1').toString('hex'))).toBe(true);
      expect(encode(samples[name]!).toString('hex')).toBe(hex);
      expect(decode(Buffer.from(hex, 'hex'))).toStrictEqual(samples[name]);
    });
  });
}
