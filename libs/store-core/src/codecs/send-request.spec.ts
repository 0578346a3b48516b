import { createHash } from 'node:crypto';
import { InvalidInputError } from '../errors/domain-errors';
import type { Id128 } from '../model/ids';
import { MAX_BODY_BYTES, MAX_EPHEMERAL_TTL_SECONDS } from '../model/message';
import type { RetentionClass, SendRequest } from '../model/message';
import { EDITED_IDENTITY_HEX, NORMAL_DEFAULT_IDENTITY_HEX, sendRequestSamples } from './golden/golden-samples';
import { commitKeyEquals, commitKeyOf, commitKeyString, decodeSendRequest, encodeSendRequest, identityOfRequestBytes, requestIdentity } from './send-request';
import { sendRequestArb } from '../testing/arbitraries';
import { codecFailureOf, describeCodecLaws } from '../testing/codec-laws';
import { describeGolden, loadGolden } from '../testing/golden';

const sample = sendRequestSamples['normal-default']!;
const golden = (name: string) => Buffer.from(loadGolden('send-request').vectors[name]!, 'hex');
/** Golden `normal-default` bytes with `patch` applied at `at`. */
const patched = (at: number, patch: string) => {
  const b = golden('normal-default');
  Buffer.from(patch, 'hex').copy(b, at);
  return b;
};
// normal-default offsets: header 0, ids 4…67, kind 68, control 69, contentType length 70, text 72…81,
// body length 82, body 86…87, retention 88.
const KIND = 68;
const CONTROL = 69;
const RETENTION = 88;

describeGolden('send-request', sendRequestSamples, encodeSendRequest, decodeSendRequest);
describeCodecLaws('send-request', { arb: sendRequestArb, encode: encodeSendRequest, decode: decodeSendRequest, magic: 'QSR' });

describe('requestIdentity', () => {
  it('is the SHA-256 of the golden encoding (pinned)', () => {
    expect(requestIdentity(sample).toString('hex')).toBe(NORMAL_DEFAULT_IDENTITY_HEX);
    expect(createHash('sha256').update(golden('normal-default')).digest('hex')).toBe(NORMAL_DEFAULT_IDENTITY_HEX);
    expect(requestIdentity(sendRequestSamples['edited-control-ephemeral']!).toString('hex')).toBe(EDITED_IDENTITY_HEX);
  });

  it('changes with every request field, including the body and the ttl', () => {
    const variants: SendRequest[] = [
      { ...sample, conversationId: 'ff'.repeat(16) as Id128 },
      { ...sample, kind: 'edited' },
      { ...sample, control: true },
      { ...sample, contentType: 'text/plai' },
      { ...sample, body: Uint8Array.of(0x68, 0x69, 0) },
      { ...sample, retention: { kind: 'ephemeral', ttlSeconds: 1 } },
      { ...sample, retention: { kind: 'ephemeral', ttlSeconds: 2 } },
    ];
    const ids = new Set([sample, ...variants].map((r) => requestIdentity(r).toString('hex')));
    expect(ids.size).toBe(variants.length + 1);
  });
});

describe('commit keys', () => {
  it('takes tenant, sender and client message id from the request', () => {
    const key = commitKeyOf(sample);
    expect(key).toEqual({ tenantId: sample.tenantId, senderId: sample.senderId, clientMessageId: sample.clientMessageId });
    expect(commitKeyString(key)).toBe(`${'1'.repeat(32)}:${'2'.repeat(32)}:${'3'.repeat(32)}`);
  });

  it('compares all three ids', () => {
    const key = commitKeyOf(sample);
    const other = 'f'.repeat(32) as Id128;
    expect(commitKeyEquals(key, { ...key })).toBe(true);
    expect(commitKeyEquals(key, { ...key, tenantId: other })).toBe(false);
    expect(commitKeyEquals(key, { ...key, senderId: other })).toBe(false);
    expect(commitKeyEquals(key, { ...key, clientMessageId: other })).toBe(false);
  });
});

describe('decodeSendRequest refusals', () => {
  it.each([
    ['unknown kind', KIND, '04', 'OUT_OF_RANGE'],
    ['control 2', CONTROL, '02', 'OUT_OF_RANGE'],
    ['unknown retention', RETENTION, '04', 'OUT_OF_RANGE'],
    ['content type above 255 bytes', 70, '0100', 'OUT_OF_RANGE'],
    ['body above MAX_BODY_BYTES', 82, '00010001', 'OUT_OF_RANGE'],
    ['body length beyond the input', 82, '00000003', 'TRUNCATED'],
    ['malformed UTF-8 in the content type', 72, 'ff', 'OUT_OF_RANGE'],
  ])('%s (patched at byte %s)', (_, at, patch, failure) => {
    expect(codecFailureOf(() => decodeSendRequest(patched(at as number, patch as string)))).toBe(failure);
  });

  it.each([
    ['0', '00000000', 'OUT_OF_RANGE'],
    ['above the maximum', (MAX_EPHEMERAL_TTL_SECONDS + 1).toString(16).padStart(8, '0'), 'OUT_OF_RANGE'],
    ['missing', '', 'TRUNCATED'],
  ])('ephemeral ttl %s', (_, ttlHex, failure) => {
    const b = Buffer.concat([golden('normal-default').subarray(0, RETENTION), Buffer.from('01' + ttlHex, 'hex')]);
    expect(codecFailureOf(() => decodeSendRequest(b))).toBe(failure);
  });

  it('a ttl after a non-ephemeral retention is trailing garbage', () => {
    expect(codecFailureOf(() => decodeSendRequest(Buffer.concat([golden('normal-default'), Buffer.from('00000e10', 'hex')])))).toBe('TRAILING_BYTES');
  });
});

describe('encodeSendRequest validation', () => {
  const bad: [string, Partial<Record<keyof SendRequest, unknown>>][] = [
    ['an uppercase id', { tenantId: 'A'.repeat(32) }],
    ['a short id', { senderId: 'ab' }],
    ['an unknown kind', { kind: 'deleted' }],
    ['a non-boolean control', { control: 0 }],
    ['a content type of 256 bytes', { contentType: 'x'.repeat(256) }],
    ['a lone surrogate', { contentType: 'text/\ud83d' }],
    ['a body above MAX_BODY_BYTES', { body: new Uint8Array(MAX_BODY_BYTES + 1) }],
    ['a body that is not bytes', { body: 'hi' }],
    ['a ttl of 0', { retention: { kind: 'ephemeral', ttlSeconds: 0 } }],
    ['a fractional ttl', { retention: { kind: 'ephemeral', ttlSeconds: 1.5 } }],
    ['a ttl above the maximum', { retention: { kind: 'ephemeral', ttlSeconds: MAX_EPHEMERAL_TTL_SECONDS + 1 } }],
    ['an unknown retention', { retention: { kind: 'forever' } }],
  ];
  it.each(bad)('refuses %s with InvalidInputError', (_, change) => {
    expect(() => encodeSendRequest({ ...sample, ...change } as SendRequest)).toThrow(InvalidInputError);
  });

  it('accepts every bound exactly', () => {
    const retention: RetentionClass = { kind: 'ephemeral', ttlSeconds: MAX_EPHEMERAL_TTL_SECONDS };
    const r: SendRequest = { ...sample, contentType: 'é'.repeat(127) + 'x', body: new Uint8Array(MAX_BODY_BYTES).fill(7), retention };
    expect(decodeSendRequest(encodeSendRequest(r))).toStrictEqual(r);
  });
});

describe('identityOfRequestBytes (the digest taken once per request object)', () => {
  const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

  it('is the SHA-256 of the bytes, also when the request changed after an earlier call', () => {
    const r: SendRequest = { ...sendRequestSamples['normal-default']!, body: Buffer.from('first') };
    const first = identityOfRequestBytes(r, encodeSendRequest(r));
    expect(first.toString('hex')).toBe(sha(encodeSendRequest(r)));
    expect(identityOfRequestBytes(r, encodeSendRequest(r)).equals(first)).toBe(true);
    (r.body as Buffer).write('other');
    const changed = encodeSendRequest(r);
    expect(identityOfRequestBytes(r, changed).toString('hex')).toBe(sha(changed));
  });

  it('keeps its own copies: changing the bytes handed in or the identity answered changes no later answer', () => {
    const r: SendRequest = { ...sendRequestSamples['normal-default']!, body: Buffer.from('body') };
    const bytes = encodeSendRequest(r);
    const expected = sha(bytes);
    identityOfRequestBytes(r, bytes).fill(0);
    bytes.fill(1);
    expect(identityOfRequestBytes(r, encodeSendRequest(r)).toString('hex')).toBe(expected);
    expect(identityOfRequestBytes(r, bytes).toString('hex')).toBe(sha(bytes));
  });
});
