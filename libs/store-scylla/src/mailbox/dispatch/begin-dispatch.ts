import {
  CorruptEntryError,
  DispatchConflictError,
  InvalidInputError,
  LANE_COUNT,
  MAX_MAILBOX_OFFSET,
  composeMailboxSeq,
  encodeDispatchManifest,
  id128FromBytes,
  id128ToBytes,
  isCanonicalManifest,
  manifestDigest,
  manifestsEqual,
} from '@qim/store-core';
import type { DispatchManifest, DispatchReceipt, Id128 } from '@qim/store-core';
import { reqBlob } from '../cql/rows';
import { RETRY, casLoop, forEachLimited } from '../mailbox-context';
import type { MailboxContext } from '../mailbox-context';
import { OBSERVATION, SOURCE } from '../tables/dispatch-fact-tables';
import { PROGRESS } from '../tables/progress-table';
import { completeIfDone } from './completion';
import { assertNoGcMarker, readProgress } from './progress-row';
import type { ProgressRow } from './progress-row';

function validate(dispatchId: Id128, offset: bigint, manifest: DispatchManifest, digest: Uint8Array): void {
  if (manifest.dispatchId !== dispatchId) throw new InvalidInputError(`manifest belongs to dispatch ${manifest.dispatchId}, not ${dispatchId}`);
  if (!isCanonicalManifest(manifest)) throw new InvalidInputError(`manifest of dispatch ${dispatchId} is not canonical`);
  if (!manifestDigest(manifest).equals(Buffer.from(digest))) throw new InvalidInputError(`digest is not the manifest's digest`);
  if (typeof offset !== 'bigint' || offset < 0n || offset > MAX_MAILBOX_OFFSET) throw new InvalidInputError(`observed offset out of range: ${String(offset)}`);
}

/** Same dispatch with another manifest or digest → `DispatchConflictError`; GC marker → `GcNotSafeError`. */
function checkSameDispatch(p: ProgressRow, manifest: DispatchManifest, digest: Uint8Array): void {
  assertNoGcMarker(p);
  if (!Buffer.from(p.receipt.digest).equals(Buffer.from(digest)) || !manifestsEqual(p.manifest, manifest)) {
    throw new DispatchConflictError(`dispatch ${p.receipt.dispatchId} was first seen with another manifest`);
  }
}

function ownerOf(row: Parameters<typeof reqBlob>[0]): Id128 {
  return id128FromBytes(reqBlob(row, 'dispatch_id', 'lane source'));
}

/**
 * A later sight: `max_observed_offset` raised monotonically and `last_seen_at` refreshed (never moved
 * back) by CAS on the read values, conditioned on a null GC marker (`GcNotSafeError` once one exists).
 */
async function refreshSeen(ctx: MailboxContext, dispatchId: Id128, offset: bigint, manifest: DispatchManifest, digest: Uint8Array): Promise<void> {
  const key = [ctx.shardEpoch.shard, id128ToBytes(dispatchId)];
  await casLoop('dispatch progress seen', async () => {
    const p = await readProgress(ctx, dispatchId);
    if (p === null) return RETRY;
    checkSameDispatch(p, manifest, digest);
    const max = offset > p.maxObservedOffset ? offset : p.maxObservedOffset;
    const now = ctx.clock.nowMs();
    const seen = now > p.lastSeenAt ? now : p.lastSeenAt + 1n;
    const r = await ctx.cql.lwt(PROGRESS.seen, [max, seen, ...key, p.maxObservedOffset, p.lastSeenAt]);
    return r.applied ? undefined : RETRY;
  });
}

/** The observation index row, then a source row in every one of the 64 lanes (each `IF NOT EXISTS`). */
async function recordObservation(ctx: MailboxContext, dispatchId: Id128, offset: bigint, manifest: DispatchManifest): Promise<void> {
  const { shard } = ctx.shardEpoch;
  const id = id128ToBytes(dispatchId);
  const now = ctx.clock.nowMs();
  await ctx.cql.lwt(OBSERVATION.insert, [shard, id, offset, now]);
  const lanes = Array.from({ length: LANE_COUNT }, (_, lane) => lane);
  await forEachLimited(lanes, ctx.writeConcurrency, async (lane) => {
    const r = await ctx.cql.lwt(SOURCE.insert, [shard, lane, offset, id, manifest.lanes[lane]!.chunks.length, now]);
    if (!r.applied && (r.current === null || ownerOf(r.current) !== dispatchId)) {
      throw new DispatchConflictError(`source offset ${offset} of lane ${lane} belongs to another dispatch`);
    }
  });
}

/**
 * `beginDispatch` (seed "begin_dispatch"). Order:
 * 1. validate input; read progress: marker → `GcNotSafe`, other manifest/digest → `DispatchConflict`;
 * 2. refuse early when lane 0 already records `offset` for another dispatch (`DispatchConflict`);
 * 3. a later sight raises max-observed / refreshes last-seen by CAS *before* writing its rows, so a GC
 *    marker fixed meanwhile either sees the new max (and waits for it) or makes this sight fail;
 * 4. observation index `IF NOT EXISTS`, then 64 lane sources `IF NOT EXISTS` (offset owned by another
 *    dispatch → `DispatchConflict`, and a first sight then gets no progress);
 * 5. a first sight creates progress `IF NOT EXISTS` (the canonical receipt); losing that race turns
 *    it into a later sight. A manifest without chunks is complete at once.
 */
export async function beginDispatch(ctx: MailboxContext, dispatchId: Id128, offset: bigint, manifest: DispatchManifest, digest: Uint8Array): Promise<DispatchReceipt> {
  validate(dispatchId, offset, manifest, digest);
  const { shard, epoch } = ctx.shardEpoch;
  const existing = await readProgress(ctx, dispatchId);
  if (existing !== null) checkSameDispatch(existing, manifest, digest);
  const claimed = await ctx.cql.one(SOURCE.atOffset, [shard, [0], offset]);
  if (claimed !== null && ownerOf(claimed) !== dispatchId) throw new DispatchConflictError(`source offset ${offset} belongs to another dispatch`);
  if (existing !== null) await refreshSeen(ctx, dispatchId, offset, manifest, digest);
  await recordObservation(ctx, dispatchId, offset, manifest);
  let progress = existing;
  if (progress === null) {
    const now = ctx.clock.nowMs();
    const empty = manifest.lanes.every((l) => l.chunks.length === 0);
    const seq = composeMailboxSeq(epoch, offset);
    const r = await ctx.cql.lwt(PROGRESS.create, [shard, id128ToBytes(dispatchId), Buffer.from(digest), offset, seq, encodeDispatchManifest(manifest), offset, now, empty ? now : null]);
    if (!r.applied) await refreshSeen(ctx, dispatchId, offset, manifest, digest);
    progress = await readProgress(ctx, dispatchId);
    if (progress === null) throw new CorruptEntryError(`dispatch ${dispatchId} progress vanished while it was created`);
  }
  if (progress.completedAt !== null || manifest.lanes.every((l) => l.chunks.length === 0)) await completeIfDone(ctx, progress);
  return progress.receipt;
}
