import fc from 'fast-check';
import { InvalidInputError } from '../errors/domain-errors';
import type { Id128 } from '../model/ids';
import { MAX_BODY_BYTES, MAX_CONTENT_TYPE_BYTES, MAX_EPHEMERAL_TTL_SECONDS } from '../model/message';
import type { SendRequest } from '../model/message';
import { U63_MAX } from '../model/u64';
import { SAMPLE_SEND_REQUEST } from '../testing/sample-request';
import { normalizeRecipients, validateReserveInput, validateSendRequest } from './request-validation';

const id = (n: number): Id128 => n.toString(16).padStart(32, '0') as Id128;
const base: SendRequest = SAMPLE_SEND_REQUEST;
const bad = (patch: Record<string, unknown>): SendRequest => ({ ...base, ...patch }) as SendRequest;

describe('validateSendRequest', () => {
  it('accepts a canonical request and returns it unchanged', () => {
    expect(validateSendRequest(base)).toBe(base);
    const edge = {
      ...base,
      contentType: 'x'.repeat(MAX_CONTENT_TYPE_BYTES),
      body: new Uint8Array(MAX_BODY_BYTES),
      retention: { kind: 'ephemeral', ttlSeconds: MAX_EPHEMERAL_TTL_SECONDS },
    } as const;
    expect(validateSendRequest(edge)).toBe(edge);
    expect(validateSendRequest({ ...base, contentType: '' }).contentType).toBe('');
  });

  it.each([
    ['uppercase tenant id', { tenantId: 'A'.repeat(32) }],
    ['short sender id', { senderId: 'ab' }],
    ['non-hex client message id', { clientMessageId: 'z'.repeat(32) }],
    ['missing conversation id', { conversationId: undefined }],
    ['unknown kind', { kind: 'shout' }],
    ['non-boolean control', { control: 1 }],
    ['content type over 255 bytes (multi-byte)', { contentType: 'é'.repeat(128) }],
    ['content type with a lone surrogate', { contentType: 'text/\ud800' }],
    ['non-string content type', { contentType: 7 }],
    ['body over 64 KiB', { body: new Uint8Array(MAX_BODY_BYTES + 1) }],
    ['body not bytes', { body: 'hello' }],
    ['ephemeral ttl 0', { retention: { kind: 'ephemeral', ttlSeconds: 0 } }],
    ['ephemeral ttl over a year', { retention: { kind: 'ephemeral', ttlSeconds: MAX_EPHEMERAL_TTL_SECONDS + 1 } }],
    ['ephemeral ttl fractional', { retention: { kind: 'ephemeral', ttlSeconds: 1.5 } }],
    ['unknown retention', { retention: { kind: 'forever' } }],
    ['missing retention', { retention: undefined }],
  ])('rejects %s with InvalidInputError', (_name, patch) => {
    expect(() => validateSendRequest(bad(patch))).toThrow(InvalidInputError);
  });
});

describe('normalizeRecipients / validateReserveInput', () => {
  it('sorts and dedups recipients whatever the input order', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 50 })), (ns) => {
        const out = normalizeRecipients(ns.map(id));
        expect(out).toEqual([...new Set(ns)].sort((a, b) => a - b).map(id));
      }),
    );
  });

  it('rejects a malformed recipient', () => {
    expect(() => normalizeRecipients([id(1), 'nope' as Id128])).toThrow(InvalidInputError);
  });

  it('checks message id and created_at and normalises recipients', () => {
    const input = { request: base, messageId: id(9), createdAt: 5n, recipients: [id(3), id(1), id(3)] };
    expect(validateReserveInput(input).recipients).toEqual([id(1), id(3)]);
    expect(() => validateReserveInput({ ...input, messageId: 'x' as Id128 })).toThrow(InvalidInputError);
    expect(() => validateReserveInput({ ...input, createdAt: -1n })).toThrow(InvalidInputError);
    expect(() => validateReserveInput({ ...input, createdAt: U63_MAX + 1n })).toThrow(InvalidInputError);
    expect(() => validateReserveInput({ ...input, request: bad({ kind: 'x' }) })).toThrow(InvalidInputError);
  });
});

describe('validated once: the validators remember what they accepted', () => {
  it('a validated reserve input passes again as itself, its raw form as the same validated value, without a second normalisation', () => {
    const raw = { request: { ...base }, messageId: id(9), createdAt: 5n, recipients: [id(3), id(1)] };
    const valid = validateReserveInput(raw);
    expect(validateReserveInput(raw)).toBe(valid);
    expect(validateReserveInput(valid)).toBe(valid);
    expect(validateSendRequest(valid.request)).toBe(raw.request);
  });

  it('only the accepted object is trusted: an equal-looking bad value, or a copy of a good one with a bad field, is checked in full', () => {
    const good = { ...base };
    validateSendRequest(good);
    expect(() => validateSendRequest({ ...good, tenantId: 'x' as Id128 })).toThrow(InvalidInputError);
    const input = { request: good, messageId: id(9), createdAt: 5n, recipients: [id(1)] };
    validateReserveInput(input);
    expect(() => validateReserveInput({ ...input, createdAt: -1n })).toThrow(InvalidInputError);
  });
});
