import { InvalidInputError, commitKeyString, id128FromBytes } from '@qim/store-core';
import type { CommitKey, CommitSnapshot, HousekeepingReport } from '@qim/store-core';
import type { types } from 'cassandra-driver';
import { fromCqlBigint, toCqlBigint } from '../session/statements';
import { loadStoredCommit } from './commit-rows';
import type { MessageContext } from './message-context';
import { RECOVERY_BUCKET_MS, recoveryBucketOf } from './tables/recovery-table';

/** Rows per CQL page of one hourly bucket (the statement's LIMIT). */
export const RECOVERY_PAGE_ROWS = 256;
/** Most recovery rows one scan examines, whatever `maxItems` is (terminal rows stay until their TTL). */
export const RECOVERY_EXAMINE_CAP = 10_000;

interface RecoveryRow {
  readonly bucket: bigint;
  readonly createdAt: bigint;
  readonly key: CommitKey;
  readonly raw: readonly [bigint, Buffer, Buffer, Buffer];
}

function rowOf(bucket: bigint, r: types.Row): RecoveryRow {
  const tenant = r['tenant_id'] as Buffer;
  const sender = r['sender_id'] as Buffer;
  const client = r['client_message_id'] as Buffer;
  const createdAt = fromCqlBigint(r['created_at'], 'commit_recovery.created_at');
  const key = { tenantId: id128FromBytes(tenant), senderId: id128FromBytes(sender), clientMessageId: id128FromBytes(client) };
  return { bucket, createdAt, key, raw: [createdAt, tenant, sender, client] };
}

/**
 * The hourly buckets that can hold live rows created before `cutoffMs`: rows live `auxTtlMs` of
 * real time and carry the writer's created_at, so from one bucket before `now − auxTtl` (clock
 * skew slack) up to the cutoff's bucket, never beyond one bucket after now. Ascending.
 */
export function recoveryBuckets(nowMs: bigint, auxTtlMs: bigint, cutoffMs: bigint): bigint[] {
  const from = nowMs - auxTtlMs - RECOVERY_BUCKET_MS;
  const first = recoveryBucketOf(from < 0n ? 0n : from);
  const lastLive = recoveryBucketOf(nowMs + RECOVERY_BUCKET_MS);
  const lastCut = cutoffMs <= 0n ? -1n : recoveryBucketOf(cutoffMs - 1n);
  const last = lastCut < lastLive ? lastCut : lastLive;
  const out: bigint[] = [];
  for (let b = first; b <= last; b++) out.push(b);
  return out;
}

/** Walks recovery rows with `created_at < cutoff`, oldest bucket first, page by page (CQL LIMIT), until `visit` says stop or the cap. */
async function walk(ctx: MessageContext, cutoffMs: bigint, cap: number, visit: (row: RecoveryRow) => Promise<boolean>): Promise<{ examined: number; more: boolean }> {
  const cutoff = toCqlBigint(cutoffMs, 'cutoff');
  let examined = 0;
  for (const bucket of recoveryBuckets(ctx.clock.nowMs(), ctx.auxTtlMs, cutoffMs)) {
    let after: readonly unknown[] = [-1n, Buffer.alloc(0), Buffer.alloc(0), Buffer.alloc(0)];
    for (;;) {
      const rs = await ctx.recovery.scan.run([bucket, ...after, cutoff, RECOVERY_PAGE_ROWS]);
      for (const r of rs.rows) {
        if (examined >= cap) return { examined, more: true };
        examined++;
        const row = rowOf(bucket, r);
        after = row.raw;
        if (!(await visit(row))) return { examined, more: true };
      }
      if (rs.rows.length < RECOVERY_PAGE_ROWS) break;
    }
  }
  return { examined, more: false };
}

/**
 * `scanRecoverableCommits`: every recovery row is re-read as its commit; vanished commits (orphans
 * of a reserve that died before its commit, or expired) and COMMITTED ones are skipped, a key seen
 * twice (a raced reserve leaves one row per candidate created_at) is reported once, and only
 * intents with `createdAt < cutoff` count. Oldest first, at most `maxItems`.
 */
export async function scanRecoverableCommits(ctx: MessageContext, cutoffMs: bigint, maxItems: number): Promise<CommitSnapshot[]> {
  if (!Number.isInteger(maxItems) || maxItems < 1) throw new InvalidInputError('maxItems must be a positive integer');
  const seen = new Set<string>();
  const found: CommitSnapshot[] = [];
  await walk(ctx, cutoffMs, RECOVERY_EXAMINE_CAP, async (row) => {
    const id = commitKeyString(row.key);
    if (seen.has(id)) return true;
    seen.add(id);
    const stored = await loadStoredCommit(ctx, row.key);
    if (stored === null || stored.snapshot.state === 'COMMITTED' || stored.snapshot.intent.createdAt >= cutoffMs) return true;
    found.push(stored.snapshot);
    return found.length < maxItems;
  });
  return found.sort((a, b) => {
    const d = a.intent.createdAt - b.intent.createdAt;
    if (d !== 0n) return d < 0n ? -1 : 1;
    const ka = commitKeyString(a.intent.key);
    const kb = commitKeyString(b.intent.key);
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
}

/**
 * `gcCommittedAuxiliary`: commit rows and recovery rows are removed by their TTL (no DELETE is ever
 * sent). This pass observes it, bounded by `limit` recovery rows: `examined` = rows read,
 * `reclaimed` = rows whose commit the server has already expired (the row follows within its TTL).
 */
export async function gcCommittedAuxiliary(ctx: MessageContext, nowMs: bigint, limit: number): Promise<HousekeepingReport> {
  if (!Number.isInteger(limit) || limit < 1) throw new InvalidInputError('limit must be a positive integer');
  let reclaimed = 0;
  const { examined, more } = await walk(ctx, nowMs + 1n, limit, async (row) => {
    if ((await loadStoredCommit(ctx, row.key)) === null) reclaimed++;
    return true;
  });
  return { examined, reclaimed, more };
}
