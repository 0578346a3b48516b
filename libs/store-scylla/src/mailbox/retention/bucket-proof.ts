import { CorruptEntryError, mergeBucketProof } from '@qim/store-core';
import type { BucketProof } from '@qim/store-core';
import type { types } from 'cassandra-driver';
import type { MailboxCql } from '../cql/mailbox-cql';
import { reqU64 } from '../cql/rows';
import { RETRY, casLoop } from '../mailbox-context';
import { RETENTION_BUCKET } from '../tables/retention-tables';

function proofOf(row: types.Row, day: number): BucketProof {
  return { day, maxSeq: reqU64(row, 'max_seq', 'bucket proof'), expiresAt: reqU64(row, 'expires_at', 'bucket proof') };
}

/**
 * Step 1 of an append: the user/epoch/day bucket proof covers `seq`. Read; if the stored proof
 * already covers it nothing is written (a replay costs no LWT); otherwise `INSERT … IF NOT EXISTS`
 * (first entry of the day) or a CAS raise on the read values (`mergeBucketProof`: max seq up,
 * expiry the earlier one). A lost race re-reads.
 */
export async function writeBucketProof(cql: MailboxCql, tenant: Buffer, user: Buffer, epoch: number, day: number, seq: bigint, expiresAt: bigint): Promise<void> {
  const key = [tenant, user, epoch, BigInt(day)];
  await casLoop('bucket proof', async () => {
    const row = await cql.one(RETENTION_BUCKET.select, key);
    const prev = row === null ? null : proofOf(row, day);
    const next = mergeBucketProof(prev, day, seq, expiresAt);
    if (prev !== null && prev.maxSeq === next.maxSeq && prev.expiresAt === next.expiresAt) return undefined;
    const r = prev === null
      ? await cql.lwt(RETENTION_BUCKET.insert, [...key, next.maxSeq, next.expiresAt])
      : await cql.lwt(RETENTION_BUCKET.raise, [next.maxSeq, next.expiresAt, ...key, prev.maxSeq, prev.expiresAt]);
    return r.applied ? undefined : RETRY;
  });
}

/**
 * The bucket proofs of `(user, epoch, day)` for each requested `{day, epoch}` (an inspected ledger
 * item's proof lives in the epoch of its max seq). Days without a row are absent from the map.
 */
export async function readBucketProofs(cql: MailboxCql, tenant: Buffer, user: Buffer, wanted: readonly { day: number; epoch: number }[]): Promise<Map<number, BucketProof>> {
  const byEpoch = new Map<number, bigint[]>();
  for (const w of wanted) byEpoch.set(w.epoch, [...(byEpoch.get(w.epoch) ?? []), BigInt(w.day)]);
  const proofs = new Map<number, BucketProof>();
  for (const [epoch, days] of byEpoch) {
    for (const row of await cql.rows(RETENTION_BUCKET.selectDays, [tenant, user, epoch, days])) {
      const day = Number(reqU64(row, 'day', 'bucket proof'));
      if (!wanted.some((w) => w.day === day && w.epoch === epoch)) throw new CorruptEntryError(`bucket proof read returned unrequested day ${day}`);
      proofs.set(day, proofOf(row, day));
    }
  }
  return proofs;
}
