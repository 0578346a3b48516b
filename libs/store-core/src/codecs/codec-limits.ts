import { MAX_BODY_BYTES, MAX_CONTENT_TYPE_BYTES } from '../model/message';

/**
 * Bounds the codecs enforce on both sides: an encoder refuses a larger value (`InvalidInputError`),
 * a decoder refuses a larger declared size (`CodecError` OUT_OF_RANGE) before allocating anything.
 * Raising one is a format change (new codec version), never a silent edit.
 */

/** Recipients of one commit intent, message event or dispatch record. */
export const MAX_CODEC_RECIPIENTS = 1 << 20;

/** Events of one mailbox entry or dispatch record (at least one is required). */
export const MAX_CODEC_EVENTS = 4096;

/** Opaque payload of one mailbox event (a message event carries a canonical `MessageRecord`). */
export const MAX_CODEC_EVENT_PAYLOAD_BYTES = 1 << 20;

/** `chunkSize` of a dispatch manifest. */
export const MAX_CODEC_CHUNK_SIZE = 1 << 20;

/** Items in the retention active ledger (seed: at most 32). */
export const MAX_LEDGER_ITEMS = 32;

/** Kafka's legal topic names (at most 249 characters of `[A-Za-z0-9._-]`). */
export const KAFKA_TOPIC_RE = /^[A-Za-z0-9._-]{1,249}$/;

/** Largest Kafka partition number (signed 32-bit). */
export const MAX_KAFKA_PARTITION = 0x7fff_ffff;

/** Largest v1 `SendRequest` encoding: header, 4 ids, kind, control, content type, body, retention. */
export const MAX_SEND_REQUEST_BYTES = 4 + 4 * 16 + 1 + 1 + 2 + MAX_CONTENT_TYPE_BYTES + 4 + MAX_BODY_BYTES + 1 + 4;

/** Largest v1 `MessageRecord` encoding: `SendRequest` plus seq, message id and created_at. */
export const MAX_MESSAGE_RECORD_BYTES = MAX_SEND_REQUEST_BYTES + 8 + 16 + 8;
