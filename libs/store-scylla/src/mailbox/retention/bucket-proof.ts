import { CorruptEntryError } from '@qim/store-core';
import type { BucketProof } from '@qim/store-core';
import type { types } from 'cassandra-driver';
import type { BatchPart, MailboxCql } from '../cql/mailbox-cql';
import { reqU64 } from '../cql/rows';
import { RETENTION_BUCKET } from '../tables/retention-tables';

function proofOf(row: types.Row, day: number): BucketProof {
  return { day, maxSeq: reqU64(row, 'max_seq', 'bucket proof'), expiresAt: reqU64(row, 'expires_at', 'bucket proof') };
}

/**
 * The bucket-proof upsert of one entry: `(user, epoch, day) → (seq, expiresAt)` stamped
 * `USING TIMESTAMP seq`, so the stored proof is the highest seq ever written for the day, whatever
 * the order of writers (no read, no LWT). A replay rewrites the same cells with the same stamp.
 */
export function bucketProofPart(tenant: Buffer, user: Buffer, epoch: number, day: number, seq: bigint, expiresAt: bigint): BatchPart {
  return { statement: RETENTION_BUCKET.upsert, params: [tenant, user, epoch, BigInt(day), seq, expiresAt, seq] };
}

/** Writes one bucket proof on its own (the slow path, before the meta LWT). */
export async function writeBucketProof(cql: MailboxCql, part: BatchPart): Promise<void> {
  await cql.run(part.statement, part.params);
}

/**
 * The bucket proofs of `(user, epoch, day)` for each requested `{day, epoch}` (a ledger item's proof
 * lives in the epoch of its max seq). Days without a row are absent from the map.
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
