import {
  CodecError,
  CorruptEntryError,
  UnavailableError,
  assertSeqInEpoch,
  checkCursor,
  checkPageBudget,
  decodeMailboxEntry,
  id128ToBytes,
  readerExpiryMarginMs,
} from '@qim/store-core';
import type { Id128, MailboxEntry, RangeScanPage, RetentionMeta } from '@qim/store-core';
import { reqBlob, reqU64 } from '../cql/rows';
import type { MailboxContext } from '../context/mailbox-context';
import { readEntryPage } from './entry-page-read';
import { inspectRetention } from './inspect';
import { readTrim } from './trim';

/** Most times one scan re-inspects because a ledger day expired while it was reading. */
const MAX_SCAN_ROUNDS = 8;

function decodeRow(row: Parameters<typeof reqBlob>[0], tenantId: Id128, userId: Id128): MailboxEntry {
  const seq = reqU64(row, 'mailbox_seq', 'mailbox entry');
  let entry: MailboxEntry;
  try {
    entry = decodeMailboxEntry(reqBlob(row, 'entry', 'mailbox entry'));
  } catch (e) {
    if (e instanceof CodecError) throw new CorruptEntryError(`mailbox entry ${seq} undecodable: ${e.message}`, { cause: e });
    throw e;
  }
  if (entry.tenantId !== tenantId || entry.userId !== userId || entry.mailboxSeq !== seq) {
    throw new CorruptEntryError(`mailbox entry at seq ${seq} holds another key (${entry.userId} @ ${entry.mailboxSeq})`);
  }
  return entry;
}

/**
 * The ledger items whose entries may already have vanished at `nowMs` and that could hold seqs
 * above `after`: the server drops a cell by whole seconds and by its own clock, from a TTL another
 * process computed with its own clock, so an entry may be gone up to `readerExpiryMarginMs(skew)`
 * (1 s + twice the skew allowance) before its `expiresAt`. A page read inside that margin cannot
 * claim coverage, so the scan waits for the expiry and inspects again (→ `CursorExpired`).
 */
function expiringDuringScan(meta: RetentionMeta, after: bigint, nowMs: bigint, skewMs: bigint): bigint | null {
  const margin = readerExpiryMarginMs(skewMs);
  const due = meta.ledger.filter((i) => i.maxSeq > after && i.expiresAt <= nowMs + margin).map((i) => i.expiresAt);
  return due.length === 0 ? null : due.reduce((a, b) => (a > b ? a : b));
}

/**
 * `rangeScan` (seed order): epoch check of both ends; `after > upTo` → `([], after)`; trim read
 * first; a user without retention meta → `([], upTo)` after the trim check; otherwise lazy
 * inspection, then `checkCursor(after, trim, gap)` (`CursorExpiredError`), then an ascending read of
 * at most `limit + 1` rows in small requests that stops once the shared page cut (`limit` events,
 * `maxBytes` payload bytes) is made (`readEntryPage`). `next = upTo` only when nothing was cut and
 * no ledger day could have expired during the read (an empty page caused by TTL never claims coverage).
 */
export async function rangeScan(
  ctx: MailboxContext,
  tenantId: Id128,
  userId: Id128,
  after: bigint,
  upTo: bigint,
  limit: number,
  maxBytes?: number,
): Promise<RangeScanPage> {
  const { epoch } = ctx.shardEpoch;
  assertSeqInEpoch(after, epoch);
  assertSeqInEpoch(upTo, epoch);
  checkPageBudget(limit, maxBytes);
  if (after > upTo) return { entries: [], next: after, hasMore: false };
  const tenant = id128ToBytes(tenantId);
  const user = id128ToBytes(userId);
  for (let round = 0; round < MAX_SCAN_ROUNDS; round++) {
    const trim = await readTrim(ctx.cql, tenant, user);
    checkCursor(after, trim, null);
    const meta = await inspectRetention(ctx, tenant, user);
    if (meta === null) return { entries: [], next: upTo, hasMore: false };
    checkCursor(after, trim, meta.gap);
    const { taken, cut } = await readEntryPage(ctx, [tenant, user], after, upTo, limit, maxBytes, (r) => decodeRow(r, tenantId, userId));
    const due = expiringDuringScan(meta, after, ctx.clock.nowMs(), ctx.clockSkewAllowanceMs);
    if (due !== null) {
      const wait = Number(due - ctx.clock.nowMs());
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      continue;
    }
    const last = taken[taken.length - 1];
    return { entries: taken, next: cut && last ? last.mailboxSeq : upTo, hasMore: cut };
  }
  throw new UnavailableError(`range scan of ${userId}: ledger days kept expiring under ${MAX_SCAN_ROUNDS} reads`);
}
