import { InvalidInputError } from '../errors/domain-errors';
import { compareId128 } from '../model/ids';
import type { MailboxEntry, MailboxEvent } from '../model/mailbox';
import { ByteReader } from './byte-reader';
import { ByteWriter } from './byte-writer';
import { readEvents, writeEvents } from './fields';

/**
 * Mailbox `Entry` codec — one user's complete event group at one mailbox seq, stored as one row.
 *
 * Layout v1 (big-endian, exact length):
 * ```
 * "QME" 0x01
 * tenantId[16] userId[16]
 * mailboxSeq u64
 * createdAt u64 (ms)
 * expiresAt u64 (ms, absolute; fixed at first write, never renewed)
 * events: u32 count (1…MAX_CODEC_EVENTS) + count × (ordinal u32, eventId[16], payload u32 len + bytes)
 *         in canonical order: strictly ascending ordinal (the (ordinal, eventId) order, no repeat)
 * ```
 * The encoder requires canonical events (run `canonicalizeEvents` on caller input first) and the
 * decoder rejects any other order or a repeated ordinal (NOT_CANONICAL), so a stored group can
 * never be read back differently from how it was written.
 *
 * Tail compatibility: v1 is exact-length. New entry fields are appended after the events under a
 * new version byte whose decoder also accepts v1; new per-event fields need a new version too.
 */
const CODEC = 'mailbox-entry';
const MAGIC = 'QME';
const VERSION = 1;

/**
 * Returns the events in canonical order `(ordinal, eventId)` (a new array of the same objects).
 * A repeated ordinal fails closed with `InvalidInputError`.
 */
export function canonicalizeEvents(events: readonly MailboxEvent[]): MailboxEvent[] {
  const sorted = [...events].sort((a, b) => a.ordinal - b.ordinal || compareId128(a.eventId, b.eventId));
  sorted.forEach((e, i) => {
    const prev = sorted[i - 1];
    if (prev !== undefined && prev.ordinal === e.ordinal) throw new InvalidInputError(`event ordinal ${e.ordinal} repeated in one group`);
  });
  return sorted;
}

export function encodeMailboxEntry(e: MailboxEntry): Buffer {
  const w = new ByteWriter(CODEC).header(MAGIC, VERSION);
  w.id(e.tenantId, 'tenantId').id(e.userId, 'userId');
  w.u64(e.mailboxSeq, 'mailboxSeq').u64(e.createdAt, 'createdAt').u64(e.expiresAt, 'expiresAt');
  writeEvents(w, e.events);
  return w.finish();
}

export function decodeMailboxEntry(b: Uint8Array): MailboxEntry {
  const r = new ByteReader(CODEC, b);
  r.header(MAGIC, [VERSION]);
  const entry: MailboxEntry = {
    tenantId: r.id('tenantId'),
    userId: r.id('userId'),
    mailboxSeq: r.u64('mailboxSeq'),
    createdAt: r.u64('createdAt'),
    expiresAt: r.u64('expiresAt'),
    events: readEvents(r),
  };
  r.end();
  return entry;
}
