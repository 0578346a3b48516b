import { InvalidInputError } from '../errors/domain-errors';
import { compareId128, isId128 } from '../model/ids';
import type { Id128 } from '../model/ids';
import { MAX_BODY_BYTES, MAX_CONTENT_TYPE_BYTES, MAX_EPHEMERAL_TTL_SECONDS, MESSAGE_KINDS } from '../model/message';
import type { RetentionClass, SendRequest } from '../model/message';
import { U63_MAX } from '../model/u64';
import type { ReserveInput } from '../ports/message-commit-steps';

const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

declare const VALIDATED: unique symbol;

/**
 * A send request `validateSendRequest` accepted. The brand is a type only; at run time the
 * validators remember every object they accepted (by identity, in a WeakMap), so a value that has
 * crossed the boundary once is not checked again on its way through the committer and the store,
 * while a raw value handed to a store directly is still checked in full. The fields are readonly:
 * a validated value is never changed, so what was checked stays true.
 */
export type ValidSendRequest = SendRequest & { readonly [VALIDATED]: 'SendRequest' };

/** A reserve input `validateReserveInput` accepted: request validated, recipients sorted unique. */
export type ValidReserveInput = ReserveInput & { readonly request: ValidSendRequest; readonly [VALIDATED]: 'ReserveInput' };

/** Requests accepted so far (weakly held: remembered as long as the caller keeps the value). */
const acceptedRequests = new WeakSet<object>();
/** Reserve inputs accepted so far, raw or validated, each mapped to its validated form. */
const acceptedInputs = new WeakMap<object, ValidReserveInput>();

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
export function validateSendRequest(r: SendRequest): ValidSendRequest {
  if (acceptedRequests.has(r)) return r as ValidSendRequest;
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
  acceptedRequests.add(r);
  return r as ValidSendRequest;
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
export function validateReserveInput(input: ReserveInput): ValidReserveInput {
  const known = acceptedInputs.get(input);
  if (known !== undefined) return known;
  const request = validateSendRequest(input.request);
  requireId(input.messageId, 'messageId');
  if (typeof input.createdAt !== 'bigint' || input.createdAt < 0n || input.createdAt > U63_MAX) {
    throw new InvalidInputError('createdAt must be a u64 millisecond timestamp with bit 63 clear');
  }
  const valid = { ...input, request, recipients: normalizeRecipients(input.recipients) } as ReserveInput as ValidReserveInput;
  acceptedInputs.set(input, valid);
  acceptedInputs.set(valid, valid);
  return valid;
}
