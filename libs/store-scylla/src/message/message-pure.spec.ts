import { CorruptEntryError, encodeCommitIntent, requestIdentity } from '@qim/store-core';
import type { CommitIntent, Id128, SendRequest } from '@qim/store-core';
import type { types } from 'cassandra-driver';
import { mapBounded } from './bounded';
import { decodeCommitRow } from './commit-rows';
import { takeWithinBudget } from './history-page';
import { ttlSecondsOf } from './message-context';
import { recoveryBuckets } from './recovery-scan';
import { seqBucketOf } from './tables/record-table';

const id = (n: number): Id128 => n.toString(16).padStart(32, '0') as Id128;
const request: SendRequest = {
  tenantId: id(1),
  senderId: id(2),
  clientMessageId: id(3),
  conversationId: id(4),
  kind: 'normal',
  control: false,
  contentType: 'text/plain',
  body: Buffer.from('hi'),
  retention: { kind: 'default' },
};
const intent: CommitIntent = {
  key: { tenantId: id(1), senderId: id(2), clientMessageId: id(3) },
  identity: requestIdentity(request),
  request,
  seq: 5n,
  messageId: id(9),
  createdAt: 1_700_000_000_000n,
  recipients: [id(2)],
  publication: null,
};
const row = (r: Record<string, unknown>) => r as unknown as types.Row;

describe('decodeCommitRow', () => {
  const good = { identity: Buffer.from(intent.identity), intent: encodeCommitIntent(intent), state: 'RESERVED', born_us: 1_700_000_000_000_000n };
  it('decodes a complete row', () => {
    const s = decodeCommitRow(row(good), intent.key);
    expect(s?.snapshot.state).toBe('RESERVED');
    expect(s?.snapshot.intent.seq).toBe(5n);
    expect(s?.bornMicros).toBe(1_700_000_000_000_000n);
  });
  it('no row, or a row whose cells expired → absent', () => {
    expect(decodeCommitRow(undefined, intent.key)).toBeNull();
    expect(decodeCommitRow(row({ ...good, identity: null }), intent.key)).toBeNull();
    expect(decodeCommitRow(row({ ...good, intent: null }), intent.key)).toBeNull();
    expect(decodeCommitRow(row({ ...good, state: null }), intent.key)).toBeNull();
  });
  it('undecodable intent, unknown state, other key or identity → CorruptEntry', () => {
    expect(() => decodeCommitRow(row({ ...good, intent: Buffer.from('junk') }), intent.key)).toThrow(CorruptEntryError);
    expect(() => decodeCommitRow(row({ ...good, state: 'LOST' }), intent.key)).toThrow(CorruptEntryError);
    expect(() => decodeCommitRow(row(good), { ...intent.key, senderId: id(7) })).toThrow(CorruptEntryError);
    expect(() => decodeCommitRow(row({ ...good, identity: Buffer.alloc(32) }), intent.key)).toThrow(CorruptEntryError);
  });
});

describe('takeWithinBudget', () => {
  const rows = [10, 20, 30, 40].map((size, i) => ({ seq: BigInt(i + 1), messageId: id(i), size, ttl: null }));
  it('the first item always, then strict byte and item budgets', () => {
    expect(takeWithinBudget(rows, 10, 1).map((r) => r.size)).toEqual([10]);
    expect(takeWithinBudget(rows, 10, 30).map((r) => r.size)).toEqual([10, 20]);
    expect(takeWithinBudget(rows, 10, 29).map((r) => r.size)).toEqual([10]);
    expect(takeWithinBudget(rows, 3, 1000).map((r) => r.size)).toEqual([10, 20, 30]);
    expect(takeWithinBudget([], 3, 1000)).toEqual([]);
  });
});

describe('recoveryBuckets', () => {
  const H = 3_600_000n;
  it('from one hour before now − aux TTL to the cutoff bucket', () => {
    const now = 100n * H + 5n;
    expect(recoveryBuckets(now, 2n * H, now)).toEqual([97n, 98n, 99n, 100n]);
    expect(recoveryBuckets(now, 3000n, now)).toEqual([98n, 99n, 100n]);
  });
  it('a cutoff far in the future stops one bucket after now; a cutoff before the window gives nothing', () => {
    const now = 100n * H;
    expect(recoveryBuckets(now, 2n * H, 1n << 62n)).toEqual([97n, 98n, 99n, 100n, 101n]);
    expect(recoveryBuckets(now, 2n * H, 50n * H)).toEqual([]);
    expect(recoveryBuckets(now, 2n * H, 0n)).toEqual([]);
  });
});

describe('small helpers', () => {
  it('ttlSecondsOf rounds up and never returns 0 (CQL TTL 0 = forever)', () => {
    expect(ttlSecondsOf(7_200_000n)).toBe(7200);
    expect(ttlSecondsOf(1n)).toBe(1);
    expect(ttlSecondsOf(0n)).toBe(1);
    expect(ttlSecondsOf(-5000n)).toBe(1);
    expect(ttlSecondsOf(2_500n)).toBe(3);
  });
  it('seqBucketOf groups 1024 seqs per record partition', () => {
    expect([0n, 1023n, 1024n, 5000n].map(seqBucketOf)).toEqual([0n, 0n, 1n, 4n]);
  });
  it('mapBounded keeps order and never exceeds its limit', async () => {
    let inFlight = 0;
    let peak = 0;
    const out = await mapBounded([5, 1, 4, 2, 3], 2, async (x) => {
      peak = Math.max(peak, ++inFlight);
      await new Promise((r) => setTimeout(r, x));
      inFlight--;
      return x * 2;
    });
    expect(out).toEqual([10, 2, 8, 4, 6]);
    expect(peak).toBe(2);
  });
});
