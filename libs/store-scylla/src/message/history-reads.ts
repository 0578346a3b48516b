import type { types } from 'cassandra-driver';
import { CorruptEntryError, decodeMessageRecord, id128FromBytes, id128ToBytes } from '@qim/store-core';
import type { HistoryItem, Id128 } from '@qim/store-core';
import { fromCqlBigint, toCqlBigint } from '../session/statements';
import { mapBounded } from './bounded';
import type { MessageContext } from './message-context';
import { seqBucketOf } from './tables/record-table';

/** Record-read queries in flight per page / summary. */
export const RECORD_READ_CONCURRENCY = 8;
/**
 * A record missing behind an Ephemeral index row whose own TTL has at most this many seconds left
 * is expiring, not lost: record and index carry the same TTL but are written a moment apart, so
 * the record may die up to a second (TTL granularity) before its index row.
 */
export const EXPIRY_SLACK_SECONDS = 2;

/** One `history_index` row. `ttl` is the remaining TTL (s) of an Ephemeral row, null for others. */
export interface IndexRow {
  readonly seq: bigint;
  readonly messageId: Id128;
  readonly size: number;
  readonly ttl: number | null;
}

export function indexRowOf(r: types.Row): IndexRow {
  const seq = fromCqlBigint(r['conversation_seq'], 'history_index.conversation_seq');
  const mid: unknown = r['message_id'];
  const size: unknown = r['record_size'];
  const ttl: unknown = r['ttl'];
  if (!Buffer.isBuffer(mid) || mid.length !== 16 || typeof size !== 'number' || size < 0) {
    throw new CorruptEntryError(`history index row ${seq} is incomplete`);
  }
  return { seq, messageId: id128FromBytes(mid), size, ttl: typeof ttl === 'number' ? ttl : null };
}

/** The conversation partition key (tenant, conversation) as blobs. */
export function conversationKey(tenantId: Id128, conversationId: Id128): Buffer[] {
  return [id128ToBytes(tenantId), id128ToBytes(conversationId)];
}

/** Batch-reads the records behind `rows` (one IN query per seq bucket, bounded concurrency). seq → bytes. */
export async function readRecordBytes(ctx: MessageContext, tenantId: Id128, conversationId: Id128, rows: readonly IndexRow[]): Promise<Map<bigint, Buffer>> {
  const byBucket = new Map<bigint, bigint[]>();
  for (const r of rows) {
    const b = seqBucketOf(r.seq);
    byBucket.set(b, [...(byBucket.get(b) ?? []), r.seq]);
  }
  const conv = conversationKey(tenantId, conversationId);
  const found = new Map<bigint, Buffer>();
  await mapBounded([...byBucket.entries()], RECORD_READ_CONCURRENCY, async ([bucket, seqs]) => {
    const rs = await ctx.cql.run(ctx.record.selectMany, [...conv, toCqlBigint(bucket, 'seq_bucket'), seqs.map((s) => toCqlBigint(s, 'seq'))]);
    for (const r of rs.rows) {
      const bytes: unknown = r['record'];
      if (Buffer.isBuffer(bytes)) found.set(fromCqlBigint(r['conversation_seq'], 'message_record.conversation_seq'), bytes);
    }
  });
  return found;
}

/** True when an Ephemeral index row is gone or about to go (its record may already be). */
async function isExpiring(ctx: MessageContext, tenantId: Id128, conversationId: Id128, row: IndexRow): Promise<boolean> {
  if (row.ttl === null) return false;
  if (row.ttl <= EXPIRY_SLACK_SECONDS) return true;
  const again = (await ctx.cql.run(ctx.index.selectOne, [...conversationKey(tenantId, conversationId), toCqlBigint(row.seq, 'seq')])).rows[0];
  if (again === undefined) return true;
  const ttl: unknown = again['ttl'];
  return typeof ttl === 'number' && ttl <= EXPIRY_SLACK_SECONDS;
}

/**
 * Turns an index row and its record bytes into a history item. Missing record → null when the
 * row is an expiring Ephemeral one, else `CorruptEntryError`; undecodable bytes, coordinates that
 * disagree with the index (tenant, conversation, seq, message id) or a size mismatch → `CorruptEntryError`.
 */
export async function resolveItem(
  ctx: MessageContext,
  tenantId: Id128,
  conversationId: Id128,
  row: IndexRow,
  bytes: Buffer | undefined,
): Promise<HistoryItem | null> {
  const where = `conversation ${conversationId} seq ${row.seq}`;
  if (bytes === undefined) {
    if (await isExpiring(ctx, tenantId, conversationId, row)) return null;
    throw new CorruptEntryError(`${where}: record missing behind its history index row`);
  }
  let record;
  try {
    record = decodeMessageRecord(bytes);
  } catch (err) {
    throw new CorruptEntryError(`${where}: undecodable record: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  if (record.tenantId !== tenantId || record.conversationId !== conversationId || record.seq !== row.seq || record.messageId !== row.messageId) {
    throw new CorruptEntryError(`${where}: record coordinates disagree with the index`);
  }
  if (bytes.length !== row.size) throw new CorruptEntryError(`${where}: record is ${bytes.length} bytes, index says ${row.size}`);
  return { record, bytes };
}
