import { id128FromBytes } from '@qim/store-core';
import type { CommitKey } from '@qim/store-core';
import type { types } from 'cassandra-driver';
import { fromCqlBigint } from '../session/statements';
import { RECOVERY_WRITE_BOUND_MS } from './recovery-entry';
import { RECOVERY_BUCKET_MS, recoveryBucketOf } from './tables/recovery-table';

/** How far the clocks of two store processes (and of a store and the server) may disagree, ms. */
export const CLOCK_SKEW_ALLOWANCE_MS = 2_500n;
/**
 * The scan's progress never reaches a position younger than this (ms before the scan's now): an
 * entry is acknowledged within `RECOVERY_WRITE_BOUND_MS` of its position (else written again), and
 * positions come from clocks at most `CLOCK_SKEW_ALLOWANCE_MS` apart, so no entry can still appear
 * behind the progress.
 */
export const RECOVERY_SETTLE_MS = RECOVERY_WRITE_BOUND_MS + CLOCK_SKEW_ALLOWANCE_MS;
/** Lifetime of the progress row beyond the aux TTL (it is useless once everything it skips has expired). */
export const PROGRESS_EXTRA_TTL_MS = RECOVERY_BUCKET_MS;

/** A clustering position in the recovery index: (position, tenant, sender, client message id). */
export interface IndexPosition {
  readonly position: bigint;
  readonly tenant: Buffer;
  readonly sender: Buffer;
  readonly client: Buffer;
}

/** One recovery index row. */
export interface IndexEntry {
  readonly at: IndexPosition;
  readonly key: CommitKey;
  readonly createdAt: bigint;
  readonly done: boolean;
}

/** Where one scan may read and how far its progress may go. */
export interface RecoveryWindow {
  /** First position that may hold a live entry: earlier ones have expired (never read: no tombstones). */
  readonly from: bigint;
  /** Progress stays strictly below this position. */
  readonly limit: bigint;
  /** Last hourly bucket that may hold an entry (positions come from clocks up to the skew ahead). */
  readonly lastBucket: bigint;
}

const EMPTY = Buffer.alloc(0);

/**
 * The window of a scan at `nowMs`. An entry lives until its commit's fixed deadline (claim + aux
 * TTL), which is no later than its position + aux TTL, so entries before `now − aux` have expired
 * and are never read: a pass reads no expired bucket and no expired prefix of a bucket.
 */
export function recoveryWindow(nowMs: bigint, auxTtlMs: bigint): RecoveryWindow {
  const from = nowMs - auxTtlMs;
  return { from: from < 0n ? 0n : from, limit: nowMs - RECOVERY_SETTLE_MS, lastBucket: recoveryBucketOf(nowMs + CLOCK_SKEW_ALLOWANCE_MS) };
}

/** Total order of the index's clustering (position, then the key blobs byte-wise, as CQL orders blobs). */
export function comparePositions(a: IndexPosition, b: IndexPosition): number {
  if (a.position !== b.position) return a.position < b.position ? -1 : 1;
  return Buffer.compare(a.tenant, b.tenant) || Buffer.compare(a.sender, b.sender) || Buffer.compare(a.client, b.client);
}

/** An exclusive start that admits every entry at or after `position` (keys are never empty). */
export function before(position: bigint): IndexPosition {
  return { position, tenant: EMPTY, sender: EMPTY, client: EMPTY };
}

/** Where a scan starts (exclusive): the stored progress, but never before the window's first live position. */
export function scanStart(progress: IndexPosition | null, window: RecoveryWindow): IndexPosition {
  const floor = before(window.from);
  return progress !== null && comparePositions(progress, floor) > 0 ? progress : floor;
}

/** The clustering values of a position, in statement order. */
export function positionParams(p: IndexPosition): [bigint, Buffer, Buffer, Buffer] {
  return [p.position, p.tenant, p.sender, p.client];
}

/** Decodes a recovery index row. */
export function indexEntryOf(r: types.Row): IndexEntry {
  const at = {
    position: fromCqlBigint(r['position'], 'commit_recovery_v2.position'),
    tenant: r['tenant_id'] as Buffer,
    sender: r['sender_id'] as Buffer,
    client: r['client_message_id'] as Buffer,
  };
  const key = { tenantId: id128FromBytes(at.tenant), senderId: id128FromBytes(at.sender), clientMessageId: id128FromBytes(at.client) };
  const created: unknown = r['created_at'];
  return {
    at,
    key,
    createdAt: created === null || created === undefined ? 0n : fromCqlBigint(created, 'commit_recovery_v2.created_at'),
    done: r['done'] === true,
  };
}

/** Decodes the progress row; null when there is none (or it has expired). */
export function progressOf(r: types.Row | undefined): IndexPosition | null {
  if (r === undefined) return null;
  const [tenant, sender, client] = [r['tenant_id'], r['sender_id'], r['client_message_id']];
  if (!Buffer.isBuffer(tenant) || !Buffer.isBuffer(sender) || !Buffer.isBuffer(client)) return null;
  return { position: fromCqlBigint(r['position'], 'commit_recovery_progress.position'), tenant, sender, client };
}
