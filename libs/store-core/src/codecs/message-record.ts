import { MAX_BODY_BYTES, MAX_CONTENT_TYPE_BYTES } from '../model/message';
import type { MessageRecord } from '../model/message';
import { ByteReader } from './byte-reader';
import { ByteWriter } from './byte-writer';
import { readKind, readRetention, writeKind, writeRetention } from './fields';

/**
 * `MessageRecord` codec — the one stored form of a message (history record, mailbox event payload,
 * Kafka message event). Records are returned to readers byte for byte from this encoding.
 *
 * Layout v1 (big-endian, exact length):
 * ```
 * "QMR" 0x01
 * tenantId[16] conversationId[16]
 * seq u64 (1…2^63−1)
 * messageId[16] senderId[16] clientMessageId[16]
 * kind u8 (normal 0, edited 1, recalled 2, system 3)
 * control u8 (0/1)
 * contentType: u16 len + UTF-8 (≤ MAX_CONTENT_TYPE_BYTES)
 * body: u32 len + bytes (≤ MAX_BODY_BYTES)
 * createdAt u64 (ms since the Unix epoch)
 * retention u8 (default 0, ephemeral 1, tenant_custom 2, compliance_hold 3)
 *   [ephemeral only: ttlSeconds u32, 1…MAX_EPHEMERAL_TTL_SECONDS]
 * ```
 * Tail compatibility: v1 is exact-length. New fields are appended after `retention` under a new
 * version byte whose decoder also accepts v1 (absent fields take documented defaults). A stored
 * record is never re-encoded in a newer version: its bytes are what history returns.
 */
const CODEC = 'message-record';
const MAGIC = 'QMR';
const VERSION = 1;

export function encodeMessageRecord(m: MessageRecord): Buffer {
  const w = new ByteWriter(CODEC).header(MAGIC, VERSION);
  w.id(m.tenantId, 'tenantId').id(m.conversationId, 'conversationId');
  if (m.seq === 0n) throw w.invalid('seq', 'must be ≥ 1');
  w.u64(m.seq, 'seq');
  w.id(m.messageId, 'messageId').id(m.senderId, 'senderId').id(m.clientMessageId, 'clientMessageId');
  writeKind(w, m.kind);
  w.bool(m.control, 'control');
  w.string(m.contentType, MAX_CONTENT_TYPE_BYTES, 'contentType');
  w.bytes(m.body, MAX_BODY_BYTES, 'body');
  w.u64(m.createdAt, 'createdAt');
  writeRetention(w, m.retention);
  return w.finish();
}

export function decodeMessageRecord(b: Uint8Array): MessageRecord {
  const r = new ByteReader(CODEC, b);
  r.header(MAGIC, [VERSION]);
  const tenantId = r.id('tenantId');
  const conversationId = r.id('conversationId');
  const seq = r.u64('seq');
  if (seq === 0n) r.fail('OUT_OF_RANGE', 'seq is 0');
  const record: MessageRecord = {
    tenantId,
    conversationId,
    seq,
    messageId: r.id('messageId'),
    senderId: r.id('senderId'),
    clientMessageId: r.id('clientMessageId'),
    kind: readKind(r),
    control: r.bool('control'),
    contentType: r.string(MAX_CONTENT_TYPE_BYTES, 'contentType'),
    body: r.bytes(MAX_BODY_BYTES, 'body'),
    createdAt: r.u64('createdAt'),
    retention: readRetention(r),
  };
  r.end();
  return record;
}
