import { ForbiddenError, InvalidInputError, U63_MAX } from '@qim/store-core';
import type { HistoryAuthorizer, HistoryItem, HistoryPage, HistoryQuery, Id128, Viewer } from '@qim/store-core';
import { toCqlBigint } from '../session/statements';
import type { MessageContext } from './message-context';
import { conversationKey, indexRowOf, readRecordBytes, resolveItem } from './history-reads';
import type { IndexRow } from './history-reads';

export const MAX_HISTORY_ITEMS = 1000;

function validate(q: HistoryQuery): void {
  if (q.direction !== 'older' && q.direction !== 'newer') throw new InvalidInputError('direction must be older or newer');
  if (!Number.isInteger(q.maxItems) || q.maxItems < 1 || q.maxItems > MAX_HISTORY_ITEMS) throw new InvalidInputError(`maxItems must be 1…${MAX_HISTORY_ITEMS}`);
  if (!Number.isInteger(q.maxBytes) || q.maxBytes < 1) throw new InvalidInputError('maxBytes must be a positive integer');
  if (q.anchor !== null && (typeof q.anchor !== 'bigint' || q.anchor < 0n || q.anchor > U63_MAX)) throw new InvalidInputError('anchor must be a u64 seq');
}

async function readIndex(ctx: MessageContext, tenantId: Id128, conversationId: Id128, q: HistoryQuery, limit: number): Promise<IndexRow[]> {
  const key = conversationKey(tenantId, conversationId);
  const older = q.direction === 'older';
  const rs =
    q.anchor === null
      ? await ctx.cql.run(older ? ctx.index.olderFromHead : ctx.index.newerFromStart, [...key, limit])
      : await ctx.cql.run(older ? ctx.index.olderFrom : ctx.index.newerFrom, [...key, toCqlBigint(q.anchor, 'anchor'), limit]);
  return rs.rows.map(indexRowOf);
}

/** Index rows the page takes: the first always; then strictly within the item and byte budgets (sizes from the index). */
export function takeWithinBudget(rows: readonly IndexRow[], maxItems: number, maxBytes: number): IndexRow[] {
  const taken: IndexRow[] = [];
  let bytes = 0;
  for (const row of rows) {
    if (taken.length >= maxItems) break;
    if (taken.length > 0 && bytes + row.size > maxBytes) break;
    taken.push(row);
    bytes += row.size;
  }
  return taken;
}

/**
 * `historyPage`: authorizer first (deny → `ForbiddenError`, zero reads), then the index in the
 * query's direction from the anchor (one row beyond the item budget, to know `hasMore`), then the
 * records batch-read per seq bucket. Damage surfaces as `CorruptEntryError`; an Ephemeral record
 * that expired between the two reads is left out.
 */
export async function historyPage(
  ctx: MessageContext,
  authorizer: HistoryAuthorizer,
  viewer: Viewer,
  conversationId: Id128,
  query: HistoryQuery,
): Promise<HistoryPage> {
  validate(query);
  if (!(await authorizer.canReadHistory(viewer, conversationId))) throw new ForbiddenError('viewer may not read this conversation');
  const tenantId = viewer.tenantId;
  const rows = await readIndex(ctx, tenantId, conversationId, query, query.maxItems + 1);
  const taken = takeWithinBudget(rows, query.maxItems, query.maxBytes);
  const bytes = await readRecordBytes(ctx, tenantId, conversationId, taken);
  const items: HistoryItem[] = [];
  for (const row of taken) {
    const item = await resolveItem(ctx, tenantId, conversationId, row, bytes.get(row.seq));
    if (item !== null) items.push(item);
  }
  const last = items[items.length - 1];
  return { items, hasMore: rows.length > taken.length, nextAnchor: last === undefined ? null : last.record.seq };
}
