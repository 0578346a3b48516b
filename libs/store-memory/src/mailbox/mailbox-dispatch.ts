import {
  ConflictError,
  CorruptEntryError,
  DispatchConflictError,
  GcNotSafeError,
  InvalidInputError,
  LANE_COUNT,
  NotFoundError,
  bytesEqual,
  composeMailboxSeq,
  declaredChunk,
  encodeDispatchManifest,
  isCanonicalManifest,
  isId128,
  manifestDigest,
} from '@qim/store-core';
import type { AppendReport, DispatchManifest, DispatchProgress, DispatchReceipt, Id128, MailboxEntryInput } from '@qim/store-core';
import { padU64 } from '../storage/memory-tables';
import { chunkKey, dispatchKey, laneKey } from './memory-mailbox-backend';
import type { ProgressRow } from './memory-mailbox-backend';
import { appendEntries } from './mailbox-entries';
import { checkLane, completedChunksOf, laneComplete, manifestOf } from './mailbox-scope';
import type { MailboxScope } from './mailbox-scope';

const receiptOf = (dispatchId: Id128, row: ProgressRow): DispatchReceipt => ({
  dispatchId,
  canonicalOffset: row.canonicalOffset,
  mailboxSeq: row.mailboxSeq,
  digest: Buffer.from(row.digest),
});

/** The progress row of a dispatch; a GC marker → `GcNotSafeError` (reads and writes alike). */
function progressRow(s: MailboxScope, dispatchId: Id128, now: bigint): ProgressRow | null {
  const row = s.backend.progress.get(dispatchKey(s.shardEpoch.shard, dispatchId), now);
  if (row !== null && row.gcDeadline !== null) throw new GcNotSafeError(`dispatch ${dispatchId} is scheduled for GC`);
  return row;
}

/**
 * `beginDispatch`: first sight fixes the receipt; later sights reuse it (same digest and manifest
 * bytes, else `DispatchConflictError`), raise `maxObservedOffset`, refresh `lastSeenAt`. An offset
 * already recorded for another dispatch → `DispatchConflictError`. Then the observation row, then
 * a source row in every one of the 64 lanes.
 */
export function beginDispatch(s: MailboxScope, dispatchId: Id128, offset: bigint, manifest: DispatchManifest, digest: Uint8Array): DispatchReceipt {
  if (!isId128(dispatchId) || manifest.dispatchId !== dispatchId) throw new InvalidInputError('beginDispatch: the manifest is not this dispatch’s');
  const mailboxSeq = composeMailboxSeq(s.shardEpoch.epoch, offset);
  const manifestBytes = encodeDispatchManifest(manifest);
  if (!isCanonicalManifest(manifest)) throw new InvalidInputError('beginDispatch: the manifest is not canonical');
  if (!bytesEqual(manifestDigest(manifest), digest)) throw new InvalidInputError('beginDispatch: the digest is not the manifest’s');
  const { shard } = s.shardEpoch;
  const dk = dispatchKey(shard, dispatchId);
  const now = s.clock.nowMs();
  const existing = progressRow(s, dispatchId, now);
  if (existing !== null && (!bytesEqual(existing.digest, digest) || !existing.manifest.equals(manifestBytes))) {
    throw new DispatchConflictError(`dispatch ${dispatchId} was first seen with another manifest`);
  }
  for (let lane = 0; lane < LANE_COUNT; lane++) {
    const src = s.backend.sources.get(laneKey(shard, lane), offset, now);
    if (src !== null && src.dispatchId !== dispatchId) throw new DispatchConflictError(`source offset ${offset} belongs to dispatch ${src.dispatchId}`);
  }

  let row: ProgressRow;
  if (existing === null) {
    const empty = manifest.lanes.every((l) => l.chunks.length === 0);
    row = { digest: Buffer.from(digest), canonicalOffset: offset, mailboxSeq, manifest: manifestBytes, maxObservedOffset: offset, lastSeenAt: now, completedAt: empty ? now : null, gcDeadline: null, gcPhase: null };
    s.backend.progress.put(dk, row, null);
    if (empty) s.backend.completed.put(String(shard), `${padU64(now)}:${dispatchId}`, { dispatchId, completedAt: now, maxObservedOffset: offset, gcDeadline: null }, null);
  } else {
    row = { ...existing, maxObservedOffset: offset > existing.maxObservedOffset ? offset : existing.maxObservedOffset, lastSeenAt: now > existing.lastSeenAt ? now : existing.lastSeenAt };
    s.backend.progress.update(dk, row, now);
    if (row.completedAt !== null) {
      const ck = `${padU64(row.completedAt)}:${dispatchId}`;
      const idx = s.backend.completed.get(String(shard), ck, now);
      if (idx !== null) s.backend.completed.update(String(shard), ck, { ...idx, maxObservedOffset: row.maxObservedOffset }, now);
    }
  }
  if (s.backend.observations.get(dk, offset, now) === null) s.backend.observations.put(dk, offset, { recordedAt: now }, null);
  for (let lane = 0; lane < LANE_COUNT; lane++) {
    if (s.backend.sources.get(laneKey(shard, lane), offset, now) === null) s.backend.sources.put(laneKey(shard, lane), offset, { dispatchId }, null);
  }
  return receiptOf(dispatchId, row);
}

/** The stored dispatch of a receipt, its manifest, and the declared chunk; every mismatch is refused. */
function requireChunk(s: MailboxScope, receipt: DispatchReceipt, lane: number, chunkId: number, now: bigint) {
  checkLane(lane);
  const row = progressRow(s, receipt.dispatchId, now);
  if (row === null) throw new NotFoundError(`no dispatch ${receipt.dispatchId}`);
  const stored = receiptOf(receipt.dispatchId, row);
  if (stored.canonicalOffset !== receipt.canonicalOffset || stored.mailboxSeq !== receipt.mailboxSeq || !bytesEqual(stored.digest, receipt.digest)) {
    throw new ConflictError(`receipt of dispatch ${receipt.dispatchId} is not the stored one`);
  }
  const manifest = manifestOf(row);
  const chunk = declaredChunk(manifest, lane, chunkId);
  if (chunk === null) throw new InvalidInputError(`dispatch ${receipt.dispatchId} declares no chunk ${chunkId} in lane ${lane}`);
  return { row, manifest, chunk };
}

/** `appendChunk`: exactly the chunk's users, each one complete group at the receipt seq. */
export function appendChunk(s: MailboxScope, receipt: DispatchReceipt, lane: number, chunkId: number, entries: readonly MailboxEntryInput[]): AppendReport {
  const { manifest, chunk } = requireChunk(s, receipt, lane, chunkId, s.clock.nowMs());
  const users = entries.map((e) => e.userId).sort();
  if (users.length !== chunk.users.length || users.some((u, i) => u !== chunk.users[i])) {
    throw new InvalidInputError(`chunk ${chunkId} of lane ${lane}: entries must be exactly the chunk's users`);
  }
  for (const e of entries) {
    if (e.tenantId !== manifest.tenantId || e.mailboxSeq !== receipt.mailboxSeq) throw new InvalidInputError('chunk entries must carry the manifest tenant and the receipt seq');
  }
  return appendEntries(s, entries);
}

/** `markChunkCompleted`: the durable completion fact; the last declared chunk completes the dispatch. */
export function markChunkCompleted(s: MailboxScope, receipt: DispatchReceipt, lane: number, chunkId: number): void {
  const now = s.clock.nowMs();
  const { row, manifest } = requireChunk(s, receipt, lane, chunkId, now);
  const { shard } = s.shardEpoch;
  const ck = chunkKey(shard, receipt.dispatchId, lane);
  if (s.backend.chunks.get(ck, BigInt(chunkId), now) === null) s.backend.chunks.put(ck, BigInt(chunkId), { completedAt: now }, null);
  if (row.completedAt !== null) return;
  for (let l = 0; l < LANE_COUNT; l++) if (!laneComplete(s, manifest, l, now)) return;
  s.backend.progress.update(dispatchKey(shard, receipt.dispatchId), { ...row, completedAt: now }, now);
  s.backend.completed.put(String(shard), `${padU64(now)}:${receipt.dispatchId}`, { dispatchId: receipt.dispatchId, completedAt: now, maxObservedOffset: row.maxObservedOffset, gcDeadline: null }, null);
}

/** `chunkCompleted`: reads the completion fact (GC marker → `GcNotSafeError`). */
export function chunkCompleted(s: MailboxScope, dispatchId: Id128, lane: number, chunkId: number): boolean {
  checkLane(lane);
  const now = s.clock.nowMs();
  progressRow(s, dispatchId, now);
  if (!Number.isInteger(chunkId) || chunkId < 0) return false;
  return s.backend.chunks.get(chunkKey(s.shardEpoch.shard, dispatchId, lane), BigInt(chunkId), now) !== null;
}

/** `dispatchProgress`: manifest + merged completion; completion that disagrees with the manifest → `CorruptEntryError`. */
export function dispatchProgress(s: MailboxScope, dispatchId: Id128): DispatchProgress | null {
  const now = s.clock.nowMs();
  const row = progressRow(s, dispatchId, now);
  if (row === null) return null;
  const manifest = manifestOf(row);
  if (manifest.dispatchId !== dispatchId || !bytesEqual(manifestDigest(manifest), row.digest)) throw new CorruptEntryError(`dispatch ${dispatchId}: manifest and digest disagree`);
  const completedChunks = Array.from({ length: LANE_COUNT }, (_, lane) => completedChunksOf(s, manifest, lane, now));
  const complete = completedChunks.every((ids, lane) => ids.length === (manifest.lanes[lane]?.chunks.length ?? 0));
  if (row.completedAt !== null && !complete) throw new CorruptEntryError(`dispatch ${dispatchId} is marked complete with chunks missing`);
  return {
    receipt: receiptOf(dispatchId, row),
    manifest,
    maxObservedOffset: row.maxObservedOffset,
    lastSeenAt: row.lastSeenAt,
    completedAt: row.completedAt,
    completedChunks,
    gcDeadline: row.gcDeadline,
    gcPhase: row.gcPhase,
  };
}
