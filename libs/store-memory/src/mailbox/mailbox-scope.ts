import { CorruptEntryError, checkRetentionMeta, decodeActiveLedger, encodeActiveLedger, gapFromStored, gapToStored } from '@qim/store-core';
import type { BucketProof, Clock, Id128, MailboxGcConfig, RetentionMeta, ShardEpoch } from '@qim/store-core';
import { decodeStored } from '../storage/decode-stored';
import { userKey } from './memory-mailbox-backend';
import type { MemoryMailboxBackend } from './memory-mailbox-backend';

/** What every mailbox operation of one store works with. */
export interface MailboxScope {
  readonly backend: MemoryMailboxBackend;
  readonly shardEpoch: ShardEpoch;
  readonly gc: MailboxGcConfig;
  readonly clock: Clock;
  /** Lifetime of a released bucket proof, from its release (ADR-0022 §6). */
  readonly releasedProofTtlMs: bigint;
}

/** The user's V4 retention meta, decoded and checked (null for a user that never had an entry). */
export function readRetentionMeta(s: MailboxScope, tenantId: Id128, userId: Id128, now: bigint): RetentionMeta | null {
  const row = s.backend.retention.get(userKey(tenantId, userId), now);
  if (row === null) return null;
  const ledger = decodeStored('active ledger', () => decodeActiveLedger(row.ledger));
  return checkRetentionMeta({ version: row.version, generation: row.generation, inspectedThrough: row.inspectedThrough, gap: gapFromStored(row.gap), ledger });
}

/**
 * The single meta write: a compare-and-set on the whole stored meta (version, generation,
 * inspected-through, gap, ledger blob). Memory operations run without interleaving between the
 * read and this write, so the condition always holds; it is checked anyway as an invariant.
 */
export function writeRetentionMeta(s: MailboxScope, tenantId: Id128, userId: Id128, expectedGeneration: bigint | null, meta: RetentionMeta, now: bigint): void {
  const key = userKey(tenantId, userId);
  const current = s.backend.retention.get(key, now);
  if ((current?.generation ?? null) !== expectedGeneration) throw new CorruptEntryError(`retention meta of ${key} changed under its writer`);
  s.backend.retention.put(
    key,
    {
      version: meta.version,
      generation: meta.generation,
      inspectedThrough: meta.inspectedThrough,
      gap: gapToStored(meta.gap),
      ledger: encodeActiveLedger(meta.ledger),
    },
    null,
  );
}

/**
 * Releases the bucket proofs (every epoch) of `days`: no ledger item refers to them any more, so they
 * expire `releasedProofTtlMs` from now (a proof already released keeps its expiry).
 */
export function releaseDayProofs(s: MailboxScope, tenantId: Id128, userId: Id128, days: Iterable<number>, now: bigint): void {
  const wanted = new Set(days);
  if (wanted.size === 0) return;
  const uk = userKey(tenantId, userId);
  for (const [ck, proof] of s.backend.proofs.scan(uk, now)) {
    if (wanted.has(proof.day)) s.backend.proofs.scheduleExpiry(uk, ck, now + s.releasedProofTtlMs, now);
  }
}

/** The day's bucket proof: the highest of its per-epoch rows (seqs of a later epoch are higher), or null. */
export function readDayProof(s: MailboxScope, tenantId: Id128, userId: Id128, day: number, now: bigint): BucketProof | null {
  const prefix = `${String(day).padStart(10, '0')}:`;
  let best: BucketProof | null = null;
  for (const [ck, proof] of s.backend.proofs.scan(userKey(tenantId, userId), now)) {
    if (!ck.startsWith(prefix)) continue;
    if (proof.day !== day) throw new CorruptEntryError(`bucket proof ${ck} carries day ${proof.day}`);
    if (best === null || proof.maxSeq > best.maxSeq) best = proof;
  }
  return best;
}
