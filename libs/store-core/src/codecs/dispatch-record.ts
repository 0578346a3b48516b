import type { DispatchRecord } from '../model/mailbox';
import { ByteReader } from './byte-reader';
import { ByteWriter } from './byte-writer';
import { MAX_CODEC_RECIPIENTS } from './codec-limits';
import { readEvents, readSortedIds, writeEvents, writeSortedIds } from './fields';

/**
 * Dispatch record codec (Kafka topic `qim.mailbox.dispatch`, value bytes).
 *
 * Layout v1 (big-endian, exact length):
 * ```
 * "QDR" 0x01
 * dispatchId[16] tenantId[16]
 * shard u16
 * messageId[16] conversationId[16]
 * seq u64 (1…2^63−1)
 * createdAt u64 (ms)
 * recipients: u32 count (≤ MAX_CODEC_RECIPIENTS) + count × 16, strictly ascending
 * events: u32 count (1…MAX_CODEC_EVENTS) + count × (ordinal u32, eventId[16], payload u32 len + bytes),
 *         strictly ascending ordinal (canonical; use `canonicalizeEvents` first)
 * ```
 * Tail compatibility: v1 is exact-length. New fields are appended after `events` under a new
 * version byte whose decoder also accepts v1; consumers must be upgraded before producers write it.
 */
const CODEC = 'dispatch-record';
const MAGIC = 'QDR';
const VERSION = 1;

export function encodeDispatchRecord(d: DispatchRecord): Buffer {
  const w = new ByteWriter(CODEC).header(MAGIC, VERSION);
  w.id(d.dispatchId, 'dispatchId').id(d.tenantId, 'tenantId');
  w.u16(d.shard, 'shard');
  w.id(d.messageId, 'messageId').id(d.conversationId, 'conversationId');
  if (d.seq === 0n) throw w.invalid('seq', 'must be ≥ 1');
  w.u64(d.seq, 'seq').u64(d.createdAt, 'createdAt');
  writeSortedIds(w, d.recipients, MAX_CODEC_RECIPIENTS, 'recipients');
  writeEvents(w, d.events);
  return w.finish();
}

export function decodeDispatchRecord(b: Uint8Array): DispatchRecord {
  const r = new ByteReader(CODEC, b);
  r.header(MAGIC, [VERSION]);
  const dispatchId = r.id('dispatchId');
  const tenantId = r.id('tenantId');
  const shard = r.u16('shard');
  const messageId = r.id('messageId');
  const conversationId = r.id('conversationId');
  const seq = r.u64('seq');
  if (seq === 0n) r.fail('OUT_OF_RANGE', 'seq is 0');
  const record: DispatchRecord = {
    dispatchId,
    tenantId,
    shard,
    messageId,
    conversationId,
    seq,
    createdAt: r.u64('createdAt'),
    recipients: readSortedIds(r, MAX_CODEC_RECIPIENTS, 'recipients'),
    events: readEvents(r),
  };
  r.end();
  return record;
}
