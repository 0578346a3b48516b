import { CorruptEntryError, mergeBucketProof } from '@qim/store-core';
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

/** One stored proof row: its epoch and what it proves. */
interface ProofRow {
  readonly epoch: number;
  readonly proof: BucketProof;
}

/** Every stored proof row of the user's `days`, all epochs (one partition read). */
async function readProofRows(cql: CqlRunner, tenant: Buffer, user: Buffer, days: readonly number[]): Promise<ProofRow[]> {
  const wanted = new Set(days);
  const out: ProofRow[] = [];
  for (const row of await cql.rows(RETENTION_BUCKET.selectUser, [tenant, user])) {
    const day = Number(reqU64(row, 'day', 'bucket proof'));
    const epoch: unknown = row['epoch'];
    if (typeof epoch !== 'number' || !Number.isInteger(epoch) || epoch < 0) throw new CorruptEntryError(`bucket proof of day ${day} has no valid epoch`);
    if (wanted.has(day)) out.push({ epoch, proof: proofOf(row, day) });
  }
  return out;
}

/**
 * Releases the proofs of consumed days (ADR-0022 §6), **every epoch's row** of each day: each stored
 * row is rewritten whole with its own values and its own stamp (its max seq) `USING TTL ttlSeconds`,
 * so it expires without a DELETE and without changing what it proves. Run only after the meta write
 * that consumed the days succeeded: until then an item refers to the proofs and they must not expire.
 * A proof raised above the one read (a concurrent write) keeps its higher stamp and is released by
 * that writer.
 */
export async function releaseBucketProofs(cql: CqlRunner, tenant: Buffer, user: Buffer, days: readonly number[], ttlSeconds: number): Promise<void> {
  if (days.length === 0) return;
  for (const { epoch, proof } of await readProofRows(cql, tenant, user, days)) {
    const part = releasedProofPart(tenant, user, epoch, proof.day, proof.maxSeq, proof.expiresAt, ttlSeconds);
    await cql.run(part.statement, part.params);
  }
}

/** Writes one bucket proof on its own (the slow path, before the meta LWT). */
export async function writeBucketProof(cql: CqlRunner, part: BatchPart): Promise<void> {
  await cql.run(part.statement, part.params);
}

/**
 * The bucket proof of each requested day: the highest of its rows in every epoch (issue 27: after a
 * mailbox epoch bump, a store of the new epoch raises only its own epoch's row of a day whose ledger
 * item the old epoch registered), with the earliest expiry among them (`mergeBucketProof`). Days
 * without a row are absent from the map.
 */
export async function readBucketProofs(cql: CqlRunner, tenant: Buffer, user: Buffer, days: readonly number[]): Promise<Map<number, BucketProof>> {
  const proofs = new Map<number, BucketProof>();
  for (const { proof } of await readProofRows(cql, tenant, user, days)) {
    const prev = proofs.get(proof.day) ?? null;
    proofs.set(proof.day, prev === null ? proof : mergeBucketProof(prev, proof.day, proof.maxSeq, proof.expiresAt));
  }
  return proofs;
}
