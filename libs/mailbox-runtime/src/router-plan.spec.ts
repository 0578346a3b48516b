import type { Id128, MessageRecord } from '@qim/store-core';
import { decodeMessageRecord, dispatchIdOf, encodeDispatchRecord, shardOf } from '@qim/store-core';
import { dispatchRecordsOf } from './router-plan';
import { ShardPlacements } from './shard-placements';

const hex = (n: number) => n.toString(16).padStart(32, '0') as Id128;
const T = hex(0xa1);
const record: MessageRecord = {
  tenantId: T,
  conversationId: hex(0xc1),
  seq: 7n,
  messageId: hex(0xe1),
  senderId: hex(1),
  clientMessageId: hex(0xd1),
  kind: 'normal',
  control: false,
  contentType: 'text/plain',
  body: Buffer.from('hi'),
  createdAt: 1_700_000_000_000n,
  retention: { kind: 'default' },
};
const users = Array.from({ length: 20 }, (_, i) => hex(i + 1));

describe('dispatchRecordsOf', () => {
  it('partitions recipients by shard, one record per shard with its dispatch id', () => {
    const out = dispatchRecordsOf({ record, recipients: users }, 4);
    expect(out.map((d) => d.shard)).toEqual([...new Set(users.map((u) => shardOf(T, u, 4)))].sort((a, b) => a - b));
    expect(out.flatMap((d) => d.recipients).sort()).toEqual([...users].sort());
    for (const d of out) {
      expect(d.dispatchId).toBe(dispatchIdOf(record.messageId, d.shard));
      expect(d.recipients.every((u) => shardOf(T, u, 4) === d.shard)).toBe(true);
      expect(d).toMatchObject({ tenantId: T, messageId: record.messageId, conversationId: record.conversationId, seq: 7n, createdAt: record.createdAt });
      expect(d.events).toHaveLength(1);
      expect(d.events[0]!.eventId).toBe(record.messageId);
      expect(decodeMessageRecord(d.events[0]!.payload)).toEqual({ ...record, body: new Uint8Array(record.body) });
    }
  });

  it('is deterministic byte for byte (a re-published event yields identical dispatch records)', () => {
    const a = dispatchRecordsOf({ record, recipients: users }, 3).map((d) => encodeDispatchRecord(d).toString('hex'));
    const b = dispatchRecordsOf({ record, recipients: [...users].reverse() }, 3).map((d) => encodeDispatchRecord(d).toString('hex'));
    expect(b).toEqual(a);
  });

  it('produces nothing for no recipients and one record for one shard', () => {
    expect(dispatchRecordsOf({ record, recipients: [] }, 4)).toEqual([]);
    expect(dispatchRecordsOf({ record, recipients: users }, 1)).toHaveLength(1);
  });

  it('plans the same records with remembered placements as with the shard count', () => {
    const placements = new ShardPlacements(4);
    for (let i = 0; i < 2; i++)
      expect(dispatchRecordsOf({ record, recipients: users }, placements)).toEqual(dispatchRecordsOf({ record, recipients: users }, 4));
  });
});
