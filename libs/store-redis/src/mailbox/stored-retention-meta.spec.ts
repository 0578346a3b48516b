import { CorruptEntryError } from '@qim/store-core';
import type { RetentionMeta } from '@qim/store-core';
import { dayProofOf, decodeRetentionMeta, encodeProofValue, encodeRetentionMeta, storedMetaOf } from './stored-retention-meta';
import type { StoredMetaFields } from './stored-retention-meta';

const meta: RetentionMeta = { version: 4, generation: 7n, inspectedThrough: 19_000, gap: 1n << 50n, ledger: [{ day: 19_001, maxSeq: 5n, expiresAt: 1_800_000_000_000n }] };
const stored = (m: RetentionMeta): StoredMetaFields => encodeRetentionMeta(m).map((v) => Buffer.from(v)) as unknown as StoredMetaFields;

describe('stored retention meta', () => {
  it('round-trips through the five stored fields; null gap and inspectedThrough are empty strings', () => {
    expect(decodeRetentionMeta(stored(meta))).toEqual(meta);
    const fresh: RetentionMeta = { version: 4, generation: 1n, inspectedThrough: null, gap: null, ledger: [] };
    expect(encodeRetentionMeta(fresh).slice(2, 4)).toEqual(['', '']);
    expect(decodeRetentionMeta(stored(fresh))).toEqual(fresh);
  });

  it('absent meta is null; a half-written or damaged one is CorruptEntry (never guessed)', () => {
    expect(storedMetaOf([null, null, null, null, null])).toBeNull();
    expect(() => storedMetaOf([Buffer.from('4'), null, null, null, null])).toThrow(CorruptEntryError);
    const f = stored(meta);
    const damaged: StoredMetaFields[] = [
      [Buffer.from('3'), f[1], f[2], f[3], f[4]],
      [Buffer.from('x'), f[1], f[2], f[3], f[4]],
      [f[0], Buffer.from('7'), f[2], f[3], f[4]],
      [f[0], f[1], Buffer.from('-1'), f[3], f[4]],
      [f[0], f[1], f[2], f[3], Buffer.from('QRL\x01\x00')],
    ];
    for (const d of damaged) expect(() => decodeRetentionMeta(d)).toThrow(CorruptEntryError);
  });

  it('the day proof is the highest of its per-epoch values, from an object or a flat HGETALL reply', () => {
    const low = Buffer.from(encodeProofValue(5n, 100n));
    const high = Buffer.from(encodeProofValue(1n << 47n, 90n));
    const expected = { day: 3, maxSeq: 1n << 47n, expiresAt: 90n };
    expect(dayProofOf(3, { '1': low, '2': high })).toEqual(expected);
    expect(dayProofOf(3, [Buffer.from('2'), high, Buffer.from('1'), low])).toEqual(expected);
    expect(dayProofOf(3, {})).toBeNull();
    expect(() => dayProofOf(3, { '1': Buffer.from('short') })).toThrow(CorruptEntryError);
  });
});
