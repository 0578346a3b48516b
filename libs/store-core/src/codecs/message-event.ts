import type { Id128 } from '../model/ids';
import type { MessageRecord } from '../model/message';
import { ByteReader } from './byte-reader';
import { ByteWriter } from './byte-writer';
import { MAX_CODEC_RECIPIENTS, MAX_MESSAGE_RECORD_BYTES } from './codec-limits';
import { readSortedIds, writeSortedIds } from './fields';
import { decodeMessageRecord, encodeMessageRecord } from './message-record';

/** The value of a Kafka `qim.messages` record: the committed message and its recipient snapshot. */
export interface MessageEvent {
  readonly record: MessageRecord;
  /** The intent's recipient snapshot: sorted ascending, unique. */
  readonly recipients: readonly Id128[];
}

/**
 * Message event codec (Kafka topic `qim.messages`, value bytes).
 *
 * Layout v1 (big-endian, exact length):
 * ```
 * "QEV" 0x01
 * record: u32 len + a complete `MessageRecord` encoding ("QMR"…, ≤ MAX_MESSAGE_RECORD_BYTES)
 * recipients: u32 count (≤ MAX_CODEC_RECIPIENTS) + count × 16, strictly ascending
 * ```
 * The event is a pure function of the intent (`messageEventOf` in `rules/record-from-intent`), so a re-publication after a crash
 * is byte-identical.
 *
 * Tail compatibility: v1 is exact-length. New fields are appended after `recipients` under a new
 * version byte whose decoder also accepts v1; consumers must be upgraded before producers write it.
 */
const CODEC = 'message-event';
const MAGIC = 'QEV';
const VERSION = 1;

export function encodeMessageEvent(e: MessageEvent): Buffer {
  const w = new ByteWriter(CODEC).header(MAGIC, VERSION);
  w.bytes(encodeMessageRecord(e.record), MAX_MESSAGE_RECORD_BYTES, 'record');
  writeSortedIds(w, e.recipients, MAX_CODEC_RECIPIENTS, 'recipients');
  return w.finish();
}

/**
 * The exact length of `encodeMessageEvent(e)` without building it (the recipient list, up to 16 MiB,
 * is not copied): what a writer checks against the topic's record limit before it reserves.
 */
export function messageEventLength(e: MessageEvent): number {
  return 4 + 4 + encodeMessageRecord(e.record).length + 4 + 16 * e.recipients.length;
}

export function decodeMessageEvent(b: Uint8Array): MessageEvent {
  const r = new ByteReader(CODEC, b);
  r.header(MAGIC, [VERSION]);
  const record = decodeMessageRecord(r.bytes(MAX_MESSAGE_RECORD_BYTES, 'record'));
  const recipients = readSortedIds(r, MAX_CODEC_RECIPIENTS, 'recipients');
  r.end();
  return { record, recipients };
}
