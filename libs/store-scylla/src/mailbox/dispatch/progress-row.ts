import type { types } from 'cassandra-driver';
import {
  CodecError,
  ConflictError,
  CorruptEntryError,
  GcNotSafeError,
  NotFoundError,
  decodeDispatchManifest,
  id128ToBytes,
  manifestDigest,
  splitMailboxSeq,
} from '@qim/store-core';
import type { DispatchManifest, DispatchReceipt, Id128 } from '@qim/store-core';
import { optInt, optU64, reqBlob, reqU64, ttlOf } from '../cql/rows';
import type { MailboxContext } from '../mailbox-context';
import { PROGRESS } from '../tables/progress-table';

/** A decoded `dispatch_progress` row, plus the stored bytes the GC rewrite needs. */
export interface ProgressRow {
  readonly receipt: DispatchReceipt;
  readonly manifest: DispatchManifest;
  readonly manifestBlob: Buffer;
  readonly maxObservedOffset: bigint;
  readonly lastSeenAt: bigint;
  readonly completedAt: bigint | null;
  /** `gc_scheduled_at`: the one fixed GC deadline (ms); null = no marker. */
  readonly gcDeadline: bigint | null;
  readonly gcPhase: 1 | 2 | null;
  /** Remaining TTL of the row (s); null = not yet rewritten by the GC. */
  readonly ttl: number | null;
}

/**
 * Decodes a progress row. A required column that is null (a markerless or half-written row), an
 * undecodable manifest, a digest that is not the manifest's, a manifest of another dispatch or a seq
 * that is not the canonical offset's → `CorruptEntryError` (fail closed, never guessed).
 */
export function parseProgress(row: types.Row, dispatchId: Id128): ProgressRow {
  const what = `dispatch ${dispatchId} progress`;
  const digest = reqBlob(row, 'digest', what);
  const manifestBlob = reqBlob(row, 'manifest', what);
  let manifest: DispatchManifest;
  try {
    manifest = decodeDispatchManifest(manifestBlob);
  } catch (e) {
    if (e instanceof CodecError) throw new CorruptEntryError(`${what}: manifest undecodable: ${e.message}`, { cause: e });
    throw e;
  }
  if (manifest.dispatchId !== dispatchId || !manifestDigest(manifest).equals(digest)) {
    throw new CorruptEntryError(`${what}: stored manifest/digest do not belong together`);
  }
  const canonicalOffset = reqU64(row, 'canonical_offset', what);
  const mailboxSeq = reqU64(row, 'mailbox_seq', what);
  if (splitMailboxSeq(mailboxSeq).offset !== canonicalOffset) throw new CorruptEntryError(`${what}: seq ${mailboxSeq} is not offset ${canonicalOffset}`);
  const phase = optInt(row, 'gc_phase', what);
  const gcDeadline = optU64(row, 'gc_scheduled_at', what);
  if ((phase !== null && phase !== 1 && phase !== 2) || (phase !== null && gcDeadline === null)) {
    throw new CorruptEntryError(`${what}: GC phase ${String(phase)} without a valid marker`);
  }
  return {
    receipt: { dispatchId, canonicalOffset, mailboxSeq, digest },
    manifest,
    manifestBlob,
    maxObservedOffset: reqU64(row, 'max_observed_offset', what),
    lastSeenAt: reqU64(row, 'last_seen_at', what),
    completedAt: optU64(row, 'completed_at', what),
    gcDeadline,
    gcPhase: phase as 1 | 2 | null,
    ttl: ttlOf(row),
  };
}

/** Reads and decodes a dispatch's progress; null when the dispatch is unknown (or its GC'd row expired). */
export async function readProgress(ctx: MailboxContext, dispatchId: Id128): Promise<ProgressRow | null> {
  const row = await ctx.cql.one(PROGRESS.select, [ctx.shardEpoch.shard, id128ToBytes(dispatchId)]);
  return row === null ? null : parseProgress(row, dispatchId);
}

/** Refuses a dispatch that carries a GC marker (`GcNotSafeError`). */
export function assertNoGcMarker(p: ProgressRow): ProgressRow {
  if (p.gcDeadline !== null) throw new GcNotSafeError(`dispatch ${p.receipt.dispatchId} is being reclaimed (GC deadline ${p.gcDeadline})`);
  return p;
}

/** True when two receipts are the same canonical receipt (ids, offset, seq, digest bytes). */
export function receiptsEqual(a: DispatchReceipt, b: DispatchReceipt): boolean {
  return (
    a.dispatchId === b.dispatchId &&
    a.canonicalOffset === b.canonicalOffset &&
    a.mailboxSeq === b.mailboxSeq &&
    Buffer.from(a.digest).equals(Buffer.from(b.digest))
  );
}

/**
 * The progress a receipt-bearing operation works on: unknown dispatch → `NotFoundError`; GC marker →
 * `GcNotSafeError`; a receipt that is not the stored one → `ConflictError`.
 */
export async function progressForReceipt(ctx: MailboxContext, receipt: DispatchReceipt): Promise<ProgressRow> {
  const p = await readProgress(ctx, receipt.dispatchId);
  if (p === null) throw new NotFoundError(`dispatch ${receipt.dispatchId} is unknown`);
  assertNoGcMarker(p);
  if (!receiptsEqual(p.receipt, receipt)) throw new ConflictError(`receipt of dispatch ${receipt.dispatchId} is not the stored one`);
  return p;
}
