import { CorruptEntryError } from '@qim/store-core';
import type { BucketProof } from '@qim/store-core';
import type { types } from 'cassandra-driver';
import type { BatchPart, CqlRunner } from '../../session/cql-runner';
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

/**
 * The same upsert for a day no ledger item can refer to any more (already consumed): it carries the
 * released-proof TTL from its first write (ADR-0022 §6).
 */
export function releasedProofPart(tenant: Buffer, user: Buffer, epoch: number, day: number, seq: bigint, expiresAt: bigint, ttlSeconds: number): BatchPart {
  return { statement: RETENTION_BUCKET.release, params: [tenant, user, epoch, BigInt(day), seq, expiresAt, ttlSeconds, seq] };
}

/**
 * Releases the proofs of consumed days (ADR-0022 §6): each stored proof is rewritten whole with its
 * own values and its own stamp (its max seq) `USING TTL ttlSeconds`, so it expires without a DELETE
 * and without changing what it proves. Run only after the meta write that consumed the days
 * succeeded: until then an item refers to the proof and it must not expire. A proof raised above
 * the one read (a concurrent write) keeps its higher stamp and is released by that writer.
 */
export async function releaseBucketProofs(cql: CqlRunner, tenant: Buffer, user: Buffer, days: readonly { day: number; epoch: number }[], ttlSeconds: number): Promise<void> {
  if (days.length === 0) return;
  const byEpoch = new Map<number, { day: number; epoch: number }[]>();
  for (const d of days) byEpoch.set(d.epoch, [...(byEpoch.get(d.epoch) ?? []), d]);
  for (const [epoch, wanted] of byEpoch) {
    const proofs = await readBucketProofs(cql, tenant, user, wanted);
    for (const proof of proofs.values()) {
      const part = releasedProofPart(tenant, user, epoch, proof.day, proof.maxSeq, proof.expiresAt, ttlSeconds);
      await cql.run(part.statement, part.params);
    }
  }
}

/** Writes one bucket proof on its own (the slow path, before the meta LWT). */
export async function writeBucketProof(cql: CqlRunner, part: BatchPart): Promise<void> {
  await cql.run(part.statement, part.params);
}

/**
 * The bucket proofs of `(user, epoch, day)` for each requested `{day, epoch}` (a ledger item's proof
 * lives in the epoch of its max seq). Days without a row are absent from the map.
 */
export async function readBucketProofs(cql: CqlRunner, tenant: Buffer, user: Buffer, wanted: readonly { day: number; epoch: number }[]): Promise<Map<number, BucketProof>> {
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
