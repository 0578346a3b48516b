import { InvalidInputError } from '../errors/domain-errors';
import { compareId128, isId128 } from '../model/ids';
import type { Id128 } from '../model/ids';
import { MAX_BODY_BYTES, MAX_CONTENT_TYPE_BYTES, MAX_EPHEMERAL_TTL_SECONDS, MESSAGE_KINDS } from '../model/message';
import type { RetentionClass, SendRequest } from '../model/message';
import { U63_MAX } from '../model/u64';
import type { ReserveInput } from '../ports/message-store';

const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

function requireId(v: unknown, field: string): void {
  if (!isId128(v)) throw new InvalidInputError(`${field} must be 32 lowercase hex characters`);
}

function validateRetention(r: RetentionClass): void {
  switch (r?.kind) {
    case 'default':
    case 'tenant_custom':
    case 'compliance_hold':
      return;
    case 'ephemeral':
      if (!Number.isInteger(r.ttlSeconds) || r.ttlSeconds < 1 || r.ttlSeconds > MAX_EPHEMERAL_TTL_SECONDS) {
        throw new InvalidInputError(`ephemeral ttlSeconds must be an integer 1…${MAX_EPHEMERAL_TTL_SECONDS}`);
      }
      return;
    default:
      throw new InvalidInputError('unknown retention class');
  }
}

/**
 * Checks a send request against the canonical limits and returns it unchanged:
 * ids are canonical `Id128`; `kind` is a known kind; `control` is a boolean; `contentType` is
 * well-formed UTF-8 (no lone surrogate, so its encoding round-trips) of at most
 * `MAX_CONTENT_TYPE_BYTES` bytes (empty allowed); `body` is a `Uint8Array` of at most
 * `MAX_BODY_BYTES` bytes; an ephemeral `ttlSeconds` is an integer 1 … `MAX_EPHEMERAL_TTL_SECONDS`.
 * Any violation → `InvalidInputError` (nothing is written by a caller that validates first).
 */
export function validateSendRequest(r: SendRequest): SendRequest {
  requireId(r.tenantId, 'tenantId');
  requireId(r.senderId, 'senderId');
  requireId(r.clientMessageId, 'clientMessageId');
  requireId(r.conversationId, 'conversationId');
  if (!MESSAGE_KINDS.includes(r.kind)) throw new InvalidInputError(`unknown message kind ${JSON.stringify(r.kind)}`);
  if (typeof r.control !== 'boolean') throw new InvalidInputError('control must be a boolean');
  if (typeof r.contentType !== 'string' || LONE_SURROGATE.test(r.contentType)) {
    throw new InvalidInputError('contentType must be well-formed UTF-8 text');
  }
  if (Buffer.byteLength(r.contentType, 'utf8') > MAX_CONTENT_TYPE_BYTES) {
    throw new InvalidInputError(`contentType exceeds ${MAX_CONTENT_TYPE_BYTES} bytes`);
  }
  if (!(r.body instanceof Uint8Array)) throw new InvalidInputError('body must be bytes');
  if (r.body.length > MAX_BODY_BYTES) throw new InvalidInputError(`body exceeds ${MAX_BODY_BYTES} bytes`);
  validateRetention(r.retention);
  return r;
}

/** Recipients sorted ascending (byte order = hex order) with duplicates removed. Ids are checked. */
export function normalizeRecipients(recipients: readonly Id128[]): Id128[] {
  recipients.forEach((id, i) => requireId(id, `recipients[${i}]`));
  return [...new Set(recipients)].sort(compareId128);
}

/**
 * Validates everything `reserve` fixes on first sight and returns the input with recipients
 * normalised (sorted unique): the request (`validateSendRequest`), the candidate `messageId`, and a
 * `createdAt` that is a u64 with bit 63 clear. Violations → `InvalidInputError`.
 */
export function validateReserveInput(input: ReserveInput): ReserveInput {
  validateSendRequest(input.request);
  requireId(input.messageId, 'messageId');
  if (typeof input.createdAt !== 'bigint' || input.createdAt < 0n || input.createdAt > U63_MAX) {
    throw new InvalidInputError('createdAt must be a u64 millisecond timestamp with bit 63 clear');
  }
  return { ...input, recipients: normalizeRecipients(input.recipients) };
}
