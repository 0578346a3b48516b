import { CorruptEntryError } from '@qim/store-core';
import type { RetentionMeta } from '@qim/store-core';
import { dayProofOf, decodeRetentionMeta, encodeRetentionMeta, storedMetaOf } from './stored-retention-meta';
import type { StoredMetaFields } from './stored-retention-meta';

const meta: RetentionMeta = {
  version: 4,
  generation: 7n,
  inspectedThrough: 19_000,
  gap: 1n << 50n,
  ledger: [{ day: 19_001, maxSeq: 5n, expiresAt: 1_800_000_000_000n }],
};
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

  it('the day proof: per epoch the highest score and the earliest expiry; over epochs the highest seq; damage is CorruptEntry', () => {
    const zrange = (...members: { member: string; score: string }[]): Buffer[] => members.flatMap((m) => [Buffer.from(m.member), Buffer.from(m.score)]);
    // what append-entries-v5 writes: member <epoch>:<expiry 16 hex>, score seq − epoch·2^47
    const proofMemberOf = (epoch: number, maxSeq: bigint, expiresAt: bigint): { member: string; score: string } => ({
      member: `${epoch}:${expiresAt.toString(16).padStart(16, '0')}`,
      score: String(maxSeq - (BigInt(epoch) << 47n)),
    });
    const one = proofMemberOf(1, (1n << 47n) + 5n, 100n);
    expect(dayProofOf(3, zrange(one))).toEqual({ day: 3, maxSeq: (1n << 47n) + 5n, expiresAt: 100n });
    const sameEpoch = zrange(proofMemberOf(2, (2n << 47n) + 9n, 120n), proofMemberOf(2, (2n << 47n) + 4n, 90n));
    expect(dayProofOf(3, sameEpoch)).toEqual({ day: 3, maxSeq: (2n << 47n) + 9n, expiresAt: 90n });
    expect(dayProofOf(3, [...zrange(one), ...sameEpoch])).toEqual({ day: 3, maxSeq: (2n << 47n) + 9n, expiresAt: 90n });
    expect(dayProofOf(3, [])).toBeNull();
    for (const bad of [
      zrange({ member: '1', score: '5' }),
      zrange({ member: '1:00000000000000zz', score: '5' }),
      zrange({ member: '1:0000000000000064', score: '1.5' }),
      zrange({ member: '1:0000000000000064', score: String(1n << 47n) }),
    ]) {
      expect(() => dayProofOf(3, bad)).toThrow(CorruptEntryError);
    }
  });
});
