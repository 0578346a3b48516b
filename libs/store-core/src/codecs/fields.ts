import { compareId128 } from '../model/ids';
import type { Id128 } from '../model/ids';
import type { MailboxEvent } from '../model/mailbox';
import { MAX_EPHEMERAL_TTL_SECONDS, MESSAGE_KINDS } from '../model/message';
import type { MessageKind, RetentionClass } from '../model/message';
import type { ByteReader } from './byte-reader';
import type { ByteWriter } from './byte-writer';
import { MAX_CODEC_EVENT_PAYLOAD_BYTES, MAX_CODEC_EVENTS } from './codec-limits';

/**
 * Field layouts shared by several codecs (internal):
 * - kind: u8 = index in `MESSAGE_KINDS` (normal 0, edited 1, recalled 2, system 3).
 * - retention: u8 tag (default 0, ephemeral 1, tenant_custom 2, compliance_hold 3); ephemeral is
 *   followed by u32 ttlSeconds in 1…`MAX_EPHEMERAL_TTL_SECONDS`.
 * - sorted ids: u32 count + count × 16 bytes, strictly ascending (sorted, unique).
 * - events: u32 count (1…`MAX_CODEC_EVENTS`) + count × (u32 ordinal, 16-byte event id, u32 length +
 *   payload), strictly ascending ordinal — the canonical `(ordinal, eventId)` order with no repeat.
 */
/** `Array.isArray` without its type narrowing (which turns readonly arrays into `any[]`). */
export function isArrayValue(v: unknown): boolean {
  return Array.isArray(v);
}

const RETENTION_TAGS: readonly RetentionClass['kind'][] = ['default', 'ephemeral', 'tenant_custom', 'compliance_hold'];

export function writeKind(w: ByteWriter, kind: MessageKind): void {
  const tag = MESSAGE_KINDS.indexOf(kind);
  if (tag < 0) throw w.invalid('kind', `is not a message kind: ${String(kind)}`);
  w.u8(tag, 'kind');
}

export function readKind(r: ByteReader): MessageKind {
  const tag = r.u8('kind');
  return MESSAGE_KINDS[tag] ?? r.fail('OUT_OF_RANGE', `unknown kind ${tag}`);
}

export function writeRetention(w: ByteWriter, retention: RetentionClass): void {
  const tag = RETENTION_TAGS.indexOf(retention?.kind);
  if (tag < 0) throw w.invalid('retention', `is not a retention class: ${String(retention?.kind)}`);
  w.u8(tag, 'retention');
  if (retention.kind === 'ephemeral') {
    const ttl = retention.ttlSeconds;
    if (!Number.isSafeInteger(ttl) || ttl < 1 || ttl > MAX_EPHEMERAL_TTL_SECONDS) {
      throw w.invalid('retention.ttlSeconds', `must be an integer in 1…${MAX_EPHEMERAL_TTL_SECONDS}`);
    }
    w.u32(ttl, 'retention.ttlSeconds');
  }
}

export function readRetention(r: ByteReader): RetentionClass {
  const tag = r.u8('retention');
  const kind = RETENTION_TAGS[tag] ?? r.fail('OUT_OF_RANGE', `unknown retention ${tag}`);
  if (kind === 'ephemeral') return { kind, ttlSeconds: r.u32In(1, MAX_EPHEMERAL_TTL_SECONDS, 'retention.ttlSeconds') };
  return { kind };
}

export function writeSortedIds(w: ByteWriter, ids: readonly Id128[], max: number, what: string): void {
  if (!isArrayValue(ids)) throw w.invalid(what, 'must be an array');
  if (ids.length > max) throw w.invalid(what, `has more than ${max} items`);
  w.u32(ids.length, `${what} count`);
  ids.forEach((id, i) => {
    w.id(id, what);
    const prev = ids[i - 1];
    if (prev !== undefined && compareId128(prev, id) >= 0) throw w.invalid(what, 'must be sorted ascending and unique');
  });
}

export function readSortedIds(r: ByteReader, max: number, what: string): Id128[] {
  const count = r.u32(`${what} count`);
  if (count > max) r.fail('OUT_OF_RANGE', `${count} ${what}, more than ${max}`);
  r.needItems(count, 16, what);
  const ids: Id128[] = [];
  for (let i = 0; i < count; i++) {
    const id = r.id(what);
    const prev = ids[i - 1];
    if (prev !== undefined && compareId128(prev, id) >= 0) r.fail('NOT_CANONICAL', `${what} not sorted ascending and unique`);
    ids.push(id);
  }
  return ids;
}

export function writeEvents(w: ByteWriter, events: readonly MailboxEvent[]): void {
  if (!isArrayValue(events)) throw w.invalid('events', 'must be an array');
  if (events.length < 1 || events.length > MAX_CODEC_EVENTS) throw w.invalid('events', `must hold 1…${MAX_CODEC_EVENTS} events`);
  w.u32(events.length, 'events count');
  events.forEach((e, i) => {
    w.u32(e.ordinal, 'event ordinal');
    const prev = events[i - 1];
    if (prev !== undefined && prev.ordinal >= e.ordinal) {
      throw w.invalid('events', 'must be in canonical (ordinal, eventId) order without a repeated ordinal (use canonicalizeEvents)');
    }
    w.id(e.eventId, 'event id');
    w.bytes(e.payload, MAX_CODEC_EVENT_PAYLOAD_BYTES, 'event payload');
  });
}

export function readEvents(r: ByteReader): MailboxEvent[] {
  const count = r.u32In(1, MAX_CODEC_EVENTS, 'events count');
  r.needItems(count, 4 + 16 + 4, 'events');
  const events: MailboxEvent[] = [];
  for (let i = 0; i < count; i++) {
    const ordinal = r.u32('event ordinal');
    const prev = events[i - 1];
    if (prev !== undefined && prev.ordinal >= ordinal) r.fail('NOT_CANONICAL', 'events not in (ordinal, eventId) order or ordinal repeated');
    events.push({ ordinal, eventId: r.id('event id'), payload: r.bytes(MAX_CODEC_EVENT_PAYLOAD_BYTES, 'event payload') });
  }
  return events;
}
