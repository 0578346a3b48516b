import type { ConsumedPage, ConsumedRecord } from './page-handler';

/**
 * Cuts the records of one fetched batch (one partition, ascending offsets) into pages of at most
 * `maxRecords` records, in order. Each page spans its first to its last record's offset.
 */
export function cutPages(records: readonly ConsumedRecord[], maxRecords: number): ConsumedPage[] {
  if (!Number.isInteger(maxRecords) || maxRecords < 1) throw new RangeError(`maxRecords must be an integer ≥ 1: ${maxRecords}`);
  const pages: ConsumedPage[] = [];
  for (let i = 0; i < records.length; i += maxRecords) {
    const slice = records.slice(i, i + maxRecords);
    const first = slice[0]!;
    const last = slice[slice.length - 1]!;
    pages.push({ topic: first.topic, partition: first.partition, fromOffset: first.offset, toOffset: last.offset, records: slice });
  }
  return pages;
}
