import type { MessageEvent } from '../codecs/message-event';
import type { CommitIntent, MessageRecord, Publication, RetentionClass, SendRequest } from '../model/message';

/**
 * Builds the stored message from a commit intent. Pure and total: the same intent always yields
 * an equal record, so a recovery after a crash writes byte-identical record bytes. The record's
 * coordinates (tenant, conversation, seq, message id) are the intent's; the content is the request's.
 */
export function recordFromIntent(intent: CommitIntent): MessageRecord {
  const r = intent.request;
  return {
    tenantId: r.tenantId,
    conversationId: r.conversationId,
    seq: intent.seq,
    messageId: intent.messageId,
    senderId: r.senderId,
    clientMessageId: r.clientMessageId,
    kind: r.kind,
    control: r.control,
    contentType: r.contentType,
    body: r.body,
    createdAt: intent.createdAt,
    retention: r.retention,
  };
}

/**
 * Per-row TTL (seconds) of a message's record and history index row: the `ttlSeconds` of an
 * `ephemeral` retention, `null` (no TTL, never expired by the store) for every other class.
 */
export function recordTtlSeconds(retention: RetentionClass): number | null {
  return retention.kind === 'ephemeral' ? retention.ttlSeconds : null;
}

/**
 * The absolute end (ms) of an Ephemeral message's life: `createdAt + ttlSeconds`, the one TTL origin
 * of every backend, so a record written late (by recovery, or after a slow step) never lives longer
 * than its message was meant to. `null` for every other class.
 */
export function recordExpiresAtMs(record: { readonly createdAt: bigint; readonly retention: RetentionClass }): bigint | null {
  const ttl = recordTtlSeconds(record.retention);
  return ttl === null ? null : record.createdAt + BigInt(ttl) * 1000n;
}

/**
 * The whole-second TTL a server-expiring backend writes an Ephemeral record with at `nowMs`: the
 * remaining life rounded DOWN (a server TTL may end a message early, never late); 0 when the message
 * has less than a second left or none at all — then nothing is written (a TTL of 0 means "forever"
 * to Cassandra). `null` for every other class (no TTL).
 */
export function remainingRecordTtlSeconds(record: { readonly createdAt: bigint; readonly retention: RetentionClass }, nowMs: bigint): number | null {
  const end = recordExpiresAtMs(record);
  if (end === null) return null;
  const left = end - nowMs;
  return left <= 0n ? 0 : Number(left / 1000n);
}

/** Structural equality of two retention classes. */
export function retentionEquals(a: RetentionClass, b: RetentionClass): boolean {
  if (a.kind !== b.kind) return false;
  return a.kind !== 'ephemeral' || (b.kind === 'ephemeral' && a.ttlSeconds === b.ttlSeconds);
}

/** Byte-wise equality of two byte strings. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)) === 0;
}

/** Field-by-field equality of two records (bodies compared byte-wise). */
export function recordsEqual(a: MessageRecord, b: MessageRecord): boolean {
  return (
    a.tenantId === b.tenantId &&
    a.conversationId === b.conversationId &&
    a.seq === b.seq &&
    a.messageId === b.messageId &&
    a.senderId === b.senderId &&
    a.clientMessageId === b.clientMessageId &&
    a.kind === b.kind &&
    a.control === b.control &&
    a.contentType === b.contentType &&
    bytesEqual(a.body, b.body) &&
    a.createdAt === b.createdAt &&
    retentionEquals(a.retention, b.retention)
  );
}

/** Field-by-field equality of two send requests (bodies compared byte-wise). */
export function requestsEqual(a: SendRequest, b: SendRequest): boolean {
  return (
    a.tenantId === b.tenantId &&
    a.senderId === b.senderId &&
    a.clientMessageId === b.clientMessageId &&
    a.conversationId === b.conversationId &&
    a.kind === b.kind &&
    a.control === b.control &&
    a.contentType === b.contentType &&
    bytesEqual(a.body, b.body) &&
    retentionEquals(a.retention, b.retention)
  );
}

/** Equality of two publication coordinates (both null counts as equal). */
export function publicationsEqual(a: Publication | null, b: Publication | null): boolean {
  if (a === null || b === null) return a === b;
  return a.topic === b.topic && a.partition === b.partition && a.offset === b.offset;
}

/**
 * Equality of two commit intents: key, identity bytes, request, seq, message id, created_at,
 * recipients (in order) and — unless `ignorePublication` — the publication coordinate. Used by
 * backends to check that `putRecord` was called with the stored intent (whose publication may
 * already be filled in).
 */
export function intentsEqual(a: CommitIntent, b: CommitIntent, ignorePublication = false): boolean {
  return (
    a.key.tenantId === b.key.tenantId &&
    a.key.senderId === b.key.senderId &&
    a.key.clientMessageId === b.key.clientMessageId &&
    bytesEqual(a.identity, b.identity) &&
    requestsEqual(a.request, b.request) &&
    a.seq === b.seq &&
    a.messageId === b.messageId &&
    a.createdAt === b.createdAt &&
    a.recipients.length === b.recipients.length &&
    a.recipients.every((id, i) => id === b.recipients[i]) &&
    (ignorePublication || publicationsEqual(a.publication, b.publication))
  );
}

/** The outbox event of a commit: `recordFromIntent(intent)` and the intent's recipient snapshot. Pure. */
export function messageEventOf(intent: CommitIntent): MessageEvent {
  return { record: recordFromIntent(intent), recipients: [...intent.recipients] };
}
