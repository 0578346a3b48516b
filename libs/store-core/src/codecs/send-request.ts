import { createHash } from 'node:crypto';
import { MAX_BODY_BYTES, MAX_CONTENT_TYPE_BYTES } from '../model/message';
import type { CommitKey, SendRequest } from '../model/message';
import { ByteReader } from './byte-reader';
import { ByteWriter } from './byte-writer';
import { readKind, readRetention, writeKind, writeRetention } from './fields';

/**
 * `SendRequest` codec — the canonical request encoding, input of the stable request identity.
 *
 * Layout v1 (big-endian, exact length):
 * ```
 * "QSR" 0x01
 * tenantId[16] senderId[16] clientMessageId[16] conversationId[16]
 * kind u8 (normal 0, edited 1, recalled 2, system 3)
 * control u8 (0/1)
 * contentType: u16 len + UTF-8 (≤ MAX_CONTENT_TYPE_BYTES)
 * body: u32 len + bytes (≤ MAX_BODY_BYTES)
 * retention u8 (default 0, ephemeral 1, tenant_custom 2, compliance_hold 3)
 *   [ephemeral only: ttlSeconds u32, 1…MAX_EPHEMERAL_TTL_SECONDS]
 * ```
 * Tail compatibility: v1 is exact-length. A new field is appended after `retention` under a new
 * version byte whose decoder also accepts v1. Because the identity is a digest of these bytes, a
 * new version must encode every request expressible in v1 as v1 (new fields only when set), or
 * replays of old commits would turn into conflicts.
 */
const CODEC = 'send-request';
const MAGIC = 'QSR';
const VERSION = 1;

export function encodeSendRequest(r: SendRequest): Buffer {
  const w = new ByteWriter(CODEC).header(MAGIC, VERSION);
  w.id(r.tenantId, 'tenantId').id(r.senderId, 'senderId').id(r.clientMessageId, 'clientMessageId').id(r.conversationId, 'conversationId');
  writeKind(w, r.kind);
  w.bool(r.control, 'control');
  w.string(r.contentType, MAX_CONTENT_TYPE_BYTES, 'contentType');
  w.bytes(r.body, MAX_BODY_BYTES, 'body');
  writeRetention(w, r.retention);
  return w.finish();
}

export function decodeSendRequest(b: Uint8Array): SendRequest {
  const r = new ByteReader(CODEC, b);
  r.header(MAGIC, [VERSION]);
  const request = readSendRequestFields(r);
  r.end();
  return request;
}

function readSendRequestFields(r: ByteReader): SendRequest {
  return {
    tenantId: r.id('tenantId'),
    senderId: r.id('senderId'),
    clientMessageId: r.id('clientMessageId'),
    conversationId: r.id('conversationId'),
    kind: readKind(r),
    control: r.bool('control'),
    contentType: r.string(MAX_CONTENT_TYPE_BYTES, 'contentType'),
    body: r.bytes(MAX_BODY_BYTES, 'body'),
    retention: readRetention(r),
  };
}

/** The stable request identity: SHA-256 (32 bytes) of `encodeSendRequest(r)`. */
export function requestIdentity(r: SendRequest): Buffer {
  return sha256(encodeSendRequest(r));
}

/** SHA-256 of already encoded request bytes (same value as `requestIdentity` of their decoding). */
export function identityOfEncodedRequest(encoded: Uint8Array): Buffer {
  return sha256(encoded);
}

/** The identity last computed per request object, with the exact bytes it is the digest of. */
const knownIdentities = new WeakMap<SendRequest, { readonly bytes: Buffer; readonly identity: Buffer }>();

/**
 * `identityOfEncodedRequest(encoded)`, where `encoded` is `r`'s encoding made by the caller: a
 * commit encodes its request in several steps (reserve, the intent bytes of putRecord), and the
 * digest is taken once per request object — a later call whose bytes equal the remembered ones
 * (compared byte for byte, so a request changed in between is hashed again) reuses it.
 */
export function identityOfRequestBytes(r: SendRequest, encoded: Buffer): Buffer {
  const known = knownIdentities.get(r);
  if (known !== undefined && known.bytes.equals(encoded)) return Buffer.from(known.identity);
  const identity = sha256(encoded);
  // Private copies both ways: no caller can change what a later call is compared with or answered.
  knownIdentities.set(r, { bytes: Buffer.from(encoded), identity: Buffer.from(identity) });
  return identity;
}

/** The idempotency key of a request. */
export function commitKeyOf(r: Pick<SendRequest, 'tenantId' | 'senderId' | 'clientMessageId'>): CommitKey {
  return { tenantId: r.tenantId, senderId: r.senderId, clientMessageId: r.clientMessageId };
}

export function commitKeyEquals(a: CommitKey, b: CommitKey): boolean {
  return a.tenantId === b.tenantId && a.senderId === b.senderId && a.clientMessageId === b.clientMessageId;
}

/** `tenant:sender:clientMessageId` in hex — a map key / log label (ids are fixed-width, so it is unambiguous). */
export function commitKeyString(k: CommitKey): string {
  return `${k.tenantId}:${k.senderId}:${k.clientMessageId}`;
}

function sha256(bytes: Uint8Array): Buffer {
  return createHash('sha256').update(bytes).digest();
}
