import { PageCutter, entryPayloadBytes } from '@qim/store-core';
import type { MailboxEntry } from '@qim/store-core';
import type { types } from 'cassandra-driver';
import { PAGE_ROWS } from '../../session/cql-runner';
import { ENTRY } from '../tables/entry-table';
import type { MailboxContext } from '../context/mailbox-context';

/** The cut page and whether it was cut (entries remain after it). */
export interface EntryPageRead {
  readonly taken: MailboxEntry[];
  readonly cut: boolean;
}

/**
 * Rows the next request asks for (payload bytes as the page's budget counts them): without a byte budget the rest of `limit + 1`; with one, 2 before
 * any row is known (the first entry and the one that may end the page), then as many as the rest of
 * the budget likely holds by the rows' mean size so far, plus the one that ends it.
 */
export function nextFetchSize(remainingRows: number, maxBytes: number | undefined, rowsRead: number, bytesRead: number, bytesTaken: number): number {
  let n = remainingRows;
  if (maxBytes !== undefined) {
    n = rowsRead === 0 ? 2 : Math.floor(Math.max(0, maxBytes - bytesTaken) / Math.max(1, bytesRead / rowsRead)) + 1;
  }
  return Math.max(1, Math.min(n, remainingRows, PAGE_ROWS));
}

/**
 * Reads `after < seq ≤ upTo` ascending in requests of a few rows (`nextFetchSize`), decoding each
 * row and offering it to the page cut, and stops as soon as the cut is made: a page costs its budget
 * plus the row that ends it, never `limit` whole entries. At most `limit + 1` rows (every entry has
 * an event).
 */
export async function readEntryPage(
  ctx: MailboxContext,
  key: readonly [Buffer, Buffer],
  after: bigint,
  upTo: bigint,
  limit: number,
  maxBytes: number | undefined,
  decode: (row: types.Row) => MailboxEntry,
): Promise<EntryPageRead> {
  const cutter = new PageCutter<MailboxEntry>(limit, maxBytes);
  const params = [key[0], key[1], after, upTo, limit + 1];
  let pageState: string | undefined;
  let rowsRead = 0;
  let bytesRead = 0;
  do {
    const fetchSize = nextFetchSize(limit + 1 - rowsRead, maxBytes, rowsRead, bytesRead, cutter.takenBytes);
    const rs = await ctx.cql.run(ENTRY.range, params, { fetchSize, ...(pageState ? { pageState } : {}) });
    pageState = rs.pageState ?? undefined;
    const entries = rs.rows.map(decode);
    for (const e of entries) bytesRead += entryPayloadBytes(e);
    rowsRead += rs.rows.length;
    for (const e of entries) if (!cutter.offer(e)) return { taken: cutter.taken, cut: true };
  } while (pageState && rowsRead < limit + 1);
  return { taken: cutter.taken, cut: false };
}
