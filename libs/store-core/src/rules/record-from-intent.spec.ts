import fc from 'fast-check';
import { commitIntentArb, sendRequestArb } from '../testing/arbitraries';
import type { CommitIntent } from '../model/message';
import {
  bytesEqual,
  intentsEqual,
  publicationsEqual,
  recordExpiresAtMs,
  recordFromIntent,
  recordTtlSeconds,
  recordsEqual,
  remainingRecordTtlSeconds,
  requestsEqual,
  retentionEquals,
} from './record-from-intent';

describe('recordFromIntent', () => {
  it('takes coordinates from the intent and content from the request, deterministically', () => {
    fc.assert(
      fc.property(commitIntentArb, (intent) => {
        const r = recordFromIntent(intent);
        expect(r).toEqual({
          tenantId: intent.request.tenantId,
          conversationId: intent.request.conversationId,
          seq: intent.seq,
          messageId: intent.messageId,
          senderId: intent.request.senderId,
          clientMessageId: intent.request.clientMessageId,
          kind: intent.request.kind,
          control: intent.request.control,
          contentType: intent.request.contentType,
          body: intent.request.body,
          createdAt: intent.createdAt,
          retention: intent.request.retention,
        });
        expect(recordsEqual(r, recordFromIntent(intent))).toBe(true);
        expect(recordsEqual(r, { ...r, seq: r.seq + 1n })).toBe(false);
        expect(recordsEqual(r, { ...r, body: Uint8Array.from([...r.body, 0]) })).toBe(false);
      }),
      { numRuns: 50 },
    );
  });
});

describe('recordTtlSeconds', () => {
  it('gives a TTL only to ephemeral messages', () => {
    expect(recordTtlSeconds({ kind: 'ephemeral', ttlSeconds: 60 })).toBe(60);
    for (const kind of ['default', 'tenant_custom', 'compliance_hold'] as const) expect(recordTtlSeconds({ kind })).toBeNull();
  });
});

describe('recordExpiresAtMs / remainingRecordTtlSeconds', () => {
  const eph = { createdAt: 10_000n, retention: { kind: 'ephemeral' as const, ttlSeconds: 5 } };
  it('counts an Ephemeral life from createdAt, whenever the record is written', () => {
    expect(recordExpiresAtMs(eph)).toBe(15_000n);
    expect(recordExpiresAtMs({ createdAt: 10_000n, retention: { kind: 'default' } })).toBeNull();
  });
  it('rounds the remaining life down to whole seconds and gives 0 when under a second or past', () => {
    expect(remainingRecordTtlSeconds(eph, 10_000n)).toBe(5);
    expect(remainingRecordTtlSeconds(eph, 10_001n)).toBe(4);
    expect(remainingRecordTtlSeconds(eph, 13_999n)).toBe(1);
    expect(remainingRecordTtlSeconds(eph, 14_001n)).toBe(0);
    expect(remainingRecordTtlSeconds(eph, 15_000n)).toBe(0);
    expect(remainingRecordTtlSeconds(eph, 99_000n)).toBe(0);
    expect(remainingRecordTtlSeconds({ createdAt: 10_000n, retention: { kind: 'compliance_hold' } }, 99_000n)).toBeNull();
  });
});

describe('equality helpers', () => {
  it('compare retention, bytes, publications and requests structurally', () => {
    expect(retentionEquals({ kind: 'ephemeral', ttlSeconds: 1 }, { kind: 'ephemeral', ttlSeconds: 2 })).toBe(false);
    expect(retentionEquals({ kind: 'default' }, { kind: 'compliance_hold' })).toBe(false);
    expect(retentionEquals({ kind: 'default' }, { kind: 'default' })).toBe(true);
    expect(bytesEqual(Buffer.from([1, 2, 3]).subarray(1), new Uint8Array([2, 3]))).toBe(true);
    expect(bytesEqual(new Uint8Array([2]), new Uint8Array([2, 3]))).toBe(false);
    const p = { topic: 't', partition: 1, offset: 2n };
    expect(publicationsEqual(null, null)).toBe(true);
    expect(publicationsEqual(p, null)).toBe(false);
    expect(publicationsEqual(p, { ...p })).toBe(true);
    expect(publicationsEqual(p, { ...p, offset: 3n })).toBe(false);
    fc.assert(
      fc.property(sendRequestArb, (r) => {
        expect(requestsEqual(r, { ...r, body: Uint8Array.from(r.body) })).toBe(true);
        expect(requestsEqual(r, { ...r, control: !r.control })).toBe(false);
      }),
      { numRuns: 50 },
    );
  });

  it('intentsEqual checks every field and can ignore the publication', () => {
    fc.assert(
      fc.property(commitIntentArb, (i) => {
        const withPub: CommitIntent = { ...i, publication: { topic: 'qim.messages', partition: 0, offset: 1n } };
        const noPub: CommitIntent = { ...i, publication: null };
        expect(intentsEqual(i, { ...i, recipients: [...i.recipients] })).toBe(true);
        expect(intentsEqual(withPub, noPub)).toBe(false);
        expect(intentsEqual(withPub, noPub, true)).toBe(true);
        expect(intentsEqual(i, { ...i, seq: i.seq + 1n })).toBe(false);
        expect(intentsEqual(i, { ...i, identity: Buffer.alloc(32, 0xee) })).toBe(false);
        expect(intentsEqual(i, { ...i, recipients: [...i.recipients, 'f'.repeat(32) as never] })).toBe(false);
        expect(intentsEqual(i, { ...i, key: { ...i.key, senderId: '0'.repeat(32) as never } })).toBe(i.key.senderId === '0'.repeat(32));
      }),
      { numRuns: 50 },
    );
  });
});
