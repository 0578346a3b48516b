import { ForbiddenError, InvalidInputError, isId128 } from '@qim/store-core';
import type { Clock, HistoryAuthorizer, HistoryItem, HistoryPage, HistoryQuery, Id128, Viewer } from '@qim/store-core';
import { conversationKey } from './memory-message-backend';
import type { MemoryMessageBackend } from './memory-message-backend';
import { readRecordBehindIndex } from './record-reads';

const MAX_ITEMS = 1000;

function validate(viewer: Viewer, conversationId: Id128, q: HistoryQuery): void {
  if (!isId128(viewer.tenantId) || !isId128(viewer.userId) || !isId128(conversationId)) throw new InvalidInputError('history: ids must be canonical');
  if (q.direction !== 'older' && q.direction !== 'newer') throw new InvalidInputError(`history: unknown direction ${String(q.direction)}`);
  if (!Number.isInteger(q.maxItems) || q.maxItems < 1 || q.maxItems > MAX_ITEMS) throw new InvalidInputError(`history: maxItems must be 1…${MAX_ITEMS}`);
  if (!Number.isInteger(q.maxBytes) || q.maxBytes < 1) throw new InvalidInputError('history: maxBytes must be an integer ≥ 1');
  if (q.anchor !== null && (typeof q.anchor !== 'bigint' || q.anchor < 0n)) throw new InvalidInputError('history: anchor must be a u64 or null');
}

/**
 * One directional history page. Input checks, then the authorizer — before any storage read — then
 * the index rows in direction from the exclusive anchor (`maxItems + 1` to know `hasMore`), then
 * each record. The first item may exceed `maxBytes`; after it, an item that does not fit ends the
 * page. Damage is `CorruptEntryError`; a record that expired between the two reads is left out.
 */
export async function historyPage(
  backend: MemoryMessageBackend,
  clock: Clock,
  authorizer: HistoryAuthorizer,
  viewer: Viewer,
  conversationId: Id128,
  q: HistoryQuery,
): Promise<HistoryPage> {
  validate(viewer, conversationId, q);
  if (!(await authorizer.canReadHistory(viewer, conversationId))) throw new ForbiddenError('history: the viewer may not read this conversation');

  const pk = conversationKey(viewer.tenantId, conversationId);
  const rows = backend.historyIndex.scan(pk, clock.nowMs()).map(([seq]) => seq);
  const inDirection =
    q.direction === 'older' ? rows.filter((s) => q.anchor === null || s < q.anchor).reverse() : rows.filter((s) => q.anchor === null || s > q.anchor);
  const window = inDirection.slice(0, q.maxItems + 1);

  const items: HistoryItem[] = [];
  let used = 0;
  let hasMore = window.length > q.maxItems;
  for (const seq of window.slice(0, q.maxItems)) {
    const read = readRecordBehindIndex(backend, clock, pk, { tenantId: viewer.tenantId, conversationId, seq });
    if (read === null) continue;
    if (items.length > 0 && used + read.bytes.length > q.maxBytes) {
      hasMore = true;
      break;
    }
    items.push({ record: read.record, bytes: read.bytes });
    used += read.bytes.length;
  }
  const last = items[items.length - 1];
  return { items, hasMore, nextAnchor: last === undefined ? null : last.record.seq };
}
