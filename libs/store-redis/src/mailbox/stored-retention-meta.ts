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

/** One stored bucket proof value: max seq (16 hex) + expiry (16 hex). */
export function encodeProofValue(maxSeq: bigint, expiresAt: bigint): string {
  return `${u64ToHex16(maxSeq, 'proof max seq')}${u64ToHex16(expiresAt, 'proof expiry')}`;
}

/**
 * The day's bucket proof from `HGETALL proof:<day>` (fields = epochs; ioredis answers a field → value
 * object, a raw reply is a flat array): the highest of its per-epoch values (a later epoch's seqs
 * are higher), or null when the day has none.
 */
export function dayProofOf(day: number, hgetall: unknown): BucketProof | null {
  const values: Buffer[] = Array.isArray(hgetall)
    ? (hgetall as Buffer[]).filter((_, i) => i % 2 === 1)
    : Object.values(hgetall as Record<string, Buffer>);
  let best: BucketProof | null = null;
  for (const value of values) {
    const text = value.toString('latin1');
    if (text.length !== 32) throw new CorruptEntryError(`bucket proof of day ${day} is damaged`);
    const proof = { day, maxSeq: u64FromHex16(text.slice(0, 16), 'proof max seq'), expiresAt: u64FromHex16(text.slice(16), 'proof expiry') };
    if (best === null || proof.maxSeq > best.maxSeq) best = proof;
  }
  return best;
}
