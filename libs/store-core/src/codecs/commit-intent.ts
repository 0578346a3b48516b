import { InvariantViolationError } from '../errors/domain-errors';
import type { CommitIntent, Publication } from '../model/message';
import { ByteReader } from './byte-reader';
import { ByteWriter } from './byte-writer';
import { KAFKA_TOPIC_RE, MAX_CODEC_RECIPIENTS, MAX_KAFKA_PARTITION, MAX_SEND_REQUEST_BYTES } from './codec-limits';
import { readSortedIds, writeSortedIds } from './fields';
import { commitKeyEquals, commitKeyOf, decodeSendRequest, encodeSendRequest, identityOfEncodedRequest, identityOfRequestBytes } from './send-request';

/**
 * `CommitIntent` codec — the complete, immutable commit blob every backend stores.
 *
 * Layout v1 (big-endian, exact length):
 * ```
 * "QCI" 0x01
 * identity[32]            SHA-256 of the embedded request bytes
 * request: u32 len + a complete `SendRequest` encoding ("QSR"…, ≤ MAX_SEND_REQUEST_BYTES)
 * seq u64 (1…2^63−1)
 * messageId[16]
 * createdAt u64 (ms)
 * recipients: u32 count (≤ MAX_CODEC_RECIPIENTS) + count × 16, strictly ascending
 * publication u8 (0 = none, 1 = present)
 *   [present: topic u16 len + ASCII `[A-Za-z0-9._-]{1,249}`, partition u32 (≤ 2^31−1), offset u64]
 * ```
 * The commit key is not stored twice: it is the request's `(tenant, sender, clientMessageId)`.
 * Decoding re-derives the identity from the embedded bytes; a different stored identity →
 * NOT_CANONICAL. Encoding refuses an intent whose key or identity disagrees with its request
 * (`InvariantViolationError`).
 *
 * Tail compatibility: v1 is exact-length. New fields are appended after `publication` under a new
 * version byte whose decoder also accepts v1. The embedded request keeps its own version (see
 * send-request), so the identity of an old intent never changes.
 */
const CODEC = 'commit-intent';
const MAGIC = 'QCI';
const VERSION = 1;
const IDENTITY_BYTES = 32;

export function encodeCommitIntent(i: CommitIntent): Buffer {
  const request = encodeSendRequest(i.request);
  if (!keyMatches(i)) throw new InvariantViolationError(`${CODEC}: key does not match the request's commit key`);
  if (!identityMatches(i, request)) throw new InvariantViolationError(`${CODEC}: identity is not the SHA-256 of the request encoding`);
  return writeIntent(i, request, i.publication);
}

/** The two stored forms of one intent, from one encoding: without its publication, and with one. */
export interface CommitIntentForms {
  /** The intent with `publication: null` (what a commit stores until it is published). */
  readonly unpublished: Buffer;
  /** The intent with the given publication, or null when none was given. */
  readonly published: Buffer | null;
}

/**
 * The bytes the commit lifecycle stores for `i` — unpublished, and with `publication` when given —
 * encoding the request and checking the identity once for both. Null when the intent's key or
 * identity disagrees with its request: such an intent can equal no stored intent (callers answer it
 * as a conflict); any other invalid field throws as `encodeCommitIntent` does.
 */
export function encodeCommitIntentForms(i: CommitIntent, publication: Publication | null = null): CommitIntentForms | null {
  const request = encodeSendRequest(i.request);
  if (!keyMatches(i) || !identityMatches(i, request)) return null;
  const unpublished = writeIntent(i, request, null);
  return { unpublished, published: publication === null ? null : publishIntentBytes(unpublished, publication) };
}

/**
 * The stored bytes of an unpublished intent (`encodeCommitIntentForms(…).unpublished`, trusted to be
 * one) with `publication` filled in — without encoding the intent again. Bytes without the v1 header
 * or without the final "none" marker → `InvariantViolationError`.
 */
export function publishIntentBytes(unpublished: Buffer, publication: Publication): Buffer {
  // v1 ends with the publication field: an unpublished intent's last byte is its "none" marker.
  if (unpublished.length < 5 || unpublished.toString('latin1', 0, 3) !== MAGIC || unpublished[3] !== VERSION || unpublished[unpublished.length - 1] !== 0) {
    throw new InvariantViolationError(`${CODEC}: not the bytes of an unpublished v${VERSION} intent`);
  }
  const tail = new ByteWriter(CODEC);
  writePublication(tail, publication);
  return Buffer.concat([unpublished.subarray(0, unpublished.length - 1), tail.finish()]);
}

function keyMatches(i: CommitIntent): boolean {
  return !!i.key && commitKeyEquals(i.key, commitKeyOf(i.request));
}

function identityMatches(i: CommitIntent, request: Buffer): boolean {
  return i.identity instanceof Uint8Array && identityOfRequestBytes(i.request, request).equals(i.identity);
}

function writeIntent(i: CommitIntent, request: Buffer, publication: Publication | null): Buffer {
  const w = new ByteWriter(CODEC).header(MAGIC, VERSION);
  w.fixed(i.identity, IDENTITY_BYTES, 'identity');
  w.bytes(request, MAX_SEND_REQUEST_BYTES, 'request');
  if (i.seq === 0n) throw w.invalid('seq', 'must be ≥ 1');
  w.u64(i.seq, 'seq');
  w.id(i.messageId, 'messageId');
  w.u64(i.createdAt, 'createdAt');
  writeSortedIds(w, i.recipients, MAX_CODEC_RECIPIENTS, 'recipients');
  writePublication(w, publication);
  return w.finish();
}

export function decodeCommitIntent(b: Uint8Array): CommitIntent {
  const r = new ByteReader(CODEC, b);
  r.header(MAGIC, [VERSION]);
  const identity = r.fixed(IDENTITY_BYTES, 'identity');
  const requestBytes = r.bytes(MAX_SEND_REQUEST_BYTES, 'request');
  const request = decodeSendRequest(requestBytes);
  if (!identityOfEncodedRequest(requestBytes).equals(identity)) r.fail('NOT_CANONICAL', 'identity is not the SHA-256 of the request');
  const seq = r.u64('seq');
  if (seq === 0n) r.fail('OUT_OF_RANGE', 'seq is 0');
  const intent: CommitIntent = {
    key: commitKeyOf(request),
    identity,
    request,
    seq,
    messageId: r.id('messageId'),
    createdAt: r.u64('createdAt'),
    recipients: readSortedIds(r, MAX_CODEC_RECIPIENTS, 'recipients'),
    publication: readPublication(r),
  };
  r.end();
  return intent;
}

function writePublication(w: ByteWriter, p: Publication | null): void {
  if (p === null) {
    w.u8(0, 'publication');
    return;
  }
  if (typeof p !== 'object' || typeof p.topic !== 'string' || !KAFKA_TOPIC_RE.test(p.topic)) {
    throw w.invalid('publication.topic', 'must match [A-Za-z0-9._-]{1,249}');
  }
  if (!Number.isSafeInteger(p.partition) || p.partition < 0 || p.partition > MAX_KAFKA_PARTITION) {
    throw w.invalid('publication.partition', `must be an integer in 0…${MAX_KAFKA_PARTITION}`);
  }
  w.u8(1, 'publication');
  w.string(p.topic, 249, 'publication.topic');
  w.u32(p.partition, 'publication.partition');
  w.u64(p.offset, 'publication.offset');
}

function readPublication(r: ByteReader): Publication | null {
  const present = r.bool('publication');
  if (!present) return null;
  const topic = r.string(249, 'publication.topic');
  if (!KAFKA_TOPIC_RE.test(topic)) r.fail('OUT_OF_RANGE', 'publication.topic is not a legal Kafka topic name');
  return { topic, partition: r.u32In(0, MAX_KAFKA_PARTITION, 'publication.partition'), offset: r.u64('publication.offset') };
}
