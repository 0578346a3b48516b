import { CorruptEntryError, RETENTION_FORMAT_VERSION, checkRetentionMeta, decodeActiveLedger, encodeActiveLedger } from '@qim/store-core';
import type { BucketProof, RetentionMeta } from '@qim/store-core';
import { u64FromHex16, u64ToHex16 } from '../redis/hex64';

/**
 * The retention meta hash as stored: five raw values in the order v, gen, insp, gap, ledger.
 * `v` is '4'; gen and gap are 16 hex ('' gap = no gap yet); insp a decimal day or ''; ledger the
 * store-core active-ledger bytes. The raw values read are also the compare-and-set guard.
 */
export type StoredMetaFields = readonly [Buffer, Buffer, Buffer, Buffer, Buffer];

export const META_FIELDS = ['v', 'gen', 'insp', 'gap', 'ledger'] as const;

/** The guard for a user without meta: every field absent (v = ''). */
export const NO_META: readonly string[] = ['', '', '', '', ''];

/** HMGET reply → the raw fields, or null when the user has no meta; a half-written hash is damage. */
export function storedMetaOf(reply: unknown): StoredMetaFields | null {
  const values = reply as (Buffer | null)[];
  if (values.every((v) => v === null)) return null;
  if (values.length !== 5 || values.some((v) => v === null)) throw new CorruptEntryError('retention meta hash is missing fields');
  return values as unknown as StoredMetaFields;
}

/** Stored fields → checked `RetentionMeta` (version 4 only; anything else is `CorruptEntryError`). */
export function decodeRetentionMeta(f: StoredMetaFields): RetentionMeta {
  const [v, gen, insp, gap] = f.map((b) => b.toString('latin1')) as [string, string, string, string];
  if (!/^\d{1,5}$/.test(v)) throw new CorruptEntryError(`retention meta version is not a number: ${JSON.stringify(v)}`);
  if (insp !== '' && !/^(0|[1-9]\d{0,9})$/.test(insp)) throw new CorruptEntryError('retention meta inspectedThrough is damaged');
  let items;
  try {
    items = decodeActiveLedger(f[4]);
  } catch (e) {
    throw new CorruptEntryError('active ledger blob is undecodable', { cause: e });
  }
  return checkRetentionMeta({
    version: Number(v),
    generation: u64FromHex16(gen, 'generation'),
    inspectedThrough: insp === '' ? null : Number(insp),
    gap: gap === '' ? null : u64FromHex16(gap, 'gap'),
    ledger: items,
  });
}

/** `RetentionMeta` → the five stored values. */
export function encodeRetentionMeta(m: RetentionMeta): [string, string, string, string, Buffer] {
  if (m.version !== RETENTION_FORMAT_VERSION) throw new CorruptEntryError(`refusing to write retention meta version ${m.version}`);
  return [
    String(m.version),
    u64ToHex16(m.generation, 'generation'),
    m.inspectedThrough === null ? '' : String(m.inspectedThrough),
    m.gap === null ? '' : u64ToHex16(m.gap, 'gap'),
    encodeActiveLedger(m.ledger),
  ];
}

/** Bits of a mailbox seq below its epoch (store-core `composeMailboxSeq`): a proof's score is the seq's part below them. */
const OFFSET_BITS = 47n;
const PROOF_MEMBER = /^(0|[1-9]\d{0,9}):([0-9a-f]{16})$/;
const PROOF_SCORE = /^(0|[1-9]\d{0,14})$/;

/**
 * The day's bucket proof from `ZRANGE proof:<day> 0 -1 WITHSCORES` (members `<epoch>:<expiry>`,
 * scores the max seq's offset part): the highest seq over all members with the earliest expiry of
 * that seq's epoch (store-core `mergeBucketProof` per epoch; a later epoch's seqs are higher), or
 * null when the day has none. A member or score out of shape is damage.
 */
export function dayProofOf(day: number, withScores: unknown): BucketProof | null {
  const flat = withScores as Buffer[];
  const byEpoch = new Map<number, BucketProof>();
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const m = PROOF_MEMBER.exec(flat[i]!.toString('latin1'));
    const score = flat[i + 1]!.toString('latin1');
    if (m === null || !PROOF_SCORE.test(score) || BigInt(score) >= 1n << OFFSET_BITS) throw new CorruptEntryError(`bucket proof of day ${day} is damaged`);
    const epoch = Number(m[1]);
    const maxSeq = (BigInt(epoch) << OFFSET_BITS) + BigInt(score);
    const expiresAt = u64FromHex16(m[2]!, 'proof expiry');
    const prev = byEpoch.get(epoch);
    byEpoch.set(
      epoch,
      prev === undefined
        ? { day, maxSeq, expiresAt }
        : { day, maxSeq: maxSeq > prev.maxSeq ? maxSeq : prev.maxSeq, expiresAt: expiresAt < prev.expiresAt ? expiresAt : prev.expiresAt },
    );
  }
  let best: BucketProof | null = null;
  for (const proof of byEpoch.values()) if (best === null || proof.maxSeq > best.maxSeq) best = proof;
  return best;
}
