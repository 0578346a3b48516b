import type { Id128, MessageRecord } from '@qim/store-core';
import { actingHeaders, id128, messageRecordJson, messageRecordJsonSchema, u64, u64Text } from './index';

const hex = (n: number) => n.toString(16).padStart(32, '0') as Id128;

function record(retention: MessageRecord['retention']): MessageRecord {
  return {
    tenantId: hex(1),
    conversationId: hex(2),
    seq: 42n,
    messageId: hex(3),
    senderId: hex(4),
    clientMessageId: hex(5),
    kind: 'edited',
    control: true,
    contentType: 'text/plain',
    body: new Uint8Array(Buffer.from('héllo')),
    createdAt: 1_700_000_000_123n,
    retention,
  };
}

describe('wire fields', () => {
  it('reads ids only in their one form', () => {
    expect(id128.parse('0123456789abcdef0123456789abcdef')).toBe('0123456789abcdef0123456789abcdef');
    for (const bad of ['0123456789ABCDEF0123456789ABCDEF', 'abc', `${'a'.repeat(32)} `, 12]) expect(id128.safeParse(bad).success).toBe(false);
  });

  it('reads u64s as decimal strings below 2^63', () => {
    expect(u64.parse('0')).toBe(0n);
    expect(u64.parse(((1n << 63n) - 1n).toString())).toBe((1n << 63n) - 1n);
    for (const bad of [(1n << 63n).toString(), '-1', '01', '1.5', '', 7]) expect([bad, u64.safeParse(bad).success]).toEqual([bad, false]);
    expect(u64Text.safeParse('18446744073709551615').success).toBe(false);
  });

  it('keeps headers it does not name and refuses a malformed acting header', () => {
    const h = actingHeaders.parse({ 'x-qim-tenant': hex(1), 'x-qim-user': hex(2), authorization: 'Bearer t' });
    expect(h).toEqual({ 'x-qim-tenant': hex(1), 'x-qim-user': hex(2), authorization: 'Bearer t' });
    expect(actingHeaders.safeParse({ 'x-qim-tenant': hex(1) }).success).toBe(false);
  });
});

describe('message record JSON (one form for both services)', () => {
  it('carries every field of the record, body base64 and u64s as decimal strings', () => {
    const json = messageRecordJson(record({ kind: 'default' }));
    expect(json).toEqual({
      conversation_id: hex(2),
      seq: '42',
      message_id: hex(3),
      sender_id: hex(4),
      client_message_id: hex(5),
      kind: 'edited',
      control: true,
      content_type: 'text/plain',
      body: Buffer.from('héllo').toString('base64'),
      created_at: '1700000000123',
      retention: { kind: 'default' },
    });
    expect(messageRecordJsonSchema.parse(json)).toEqual(json);
  });

  it('carries the TTL of an ephemeral message only', () => {
    expect(messageRecordJson(record({ kind: 'ephemeral', ttlSeconds: 60 })).retention).toEqual({ kind: 'ephemeral', ttl_seconds: 60 });
    expect(messageRecordJson(record({ kind: 'compliance_hold' })).retention).toEqual({ kind: 'compliance_hold' });
  });

  it('is refused on the way out when a field is not in its wire form', () => {
    const json = messageRecordJson(record({ kind: 'default' }));
    expect(messageRecordJsonSchema.safeParse({ ...json, seq: '-1' }).success).toBe(false);
    expect(messageRecordJsonSchema.safeParse({ ...json, sender_id: 'X' }).success).toBe(false);
    const { client_message_id: _dropped, ...without } = json;
    expect(messageRecordJsonSchema.safeParse(without).success).toBe(false);
  });
});
