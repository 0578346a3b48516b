import { encodeMessageRecord, ForbiddenError, InvalidInputError, recordFromIntent } from '@qim/store-core';
import type { HistoryQuery, Id128, MessageRecord } from '@qim/store-core';
import { expectStoreError } from '../support/expect-error';
import { randomId } from '../support/ids';
import { RecordingAuthorizer, allowAll, makeRequest, makeReserve, recordMessage } from './message-fixtures';
import type { MessageContext } from './message-fixtures';

/** A conversation with records at seqs 1, 2, 4, 5, 6 (seq 3 reserved, never recorded: a legal hole). */
export interface HistoryFixture {
  readonly conv: Id128;
  readonly records: ReadonlyMap<bigint, MessageRecord>;
}

export async function historyFixture(c: MessageContext): Promise<HistoryFixture> {
  const conv = randomId();
  const records = new Map<bigint, MessageRecord>();
  for (let k = 1; k <= 6; k++) {
    const req = makeRequest(c.tenantId, conv, { body: Buffer.alloc(10 * k + 1, k) });
    if (k === 3) {
      await c.store.reserve(makeReserve(req, c.time.now()));
      continue;
    }
    const s = await recordMessage(c.store, makeReserve(req, c.time.now()));
    records.set(s.intent.seq, recordFromIntent(s.intent));
  }
  return { conv, records };
}

function q(direction: 'older' | 'newer', anchor: bigint | null, maxItems = 100, maxBytes = 1 << 20): HistoryQuery {
  return { direction, anchor, maxItems, maxBytes };
}

/** Directions, anchors, budgets, holes, byte-for-byte records and authorization order. */
export function historyCases(ctx: () => MessageContext): void {
  describe('history pages', () => {
    const seqsOf = (p: { items: readonly { record: MessageRecord }[] }): bigint[] => p.items.map((i) => i.record.seq);

    it('both directions, with and without anchor, across the hole at seq 3', async () => {
      const c = ctx();
      const { conv } = await historyFixture(c);
      const v = { tenantId: c.tenantId, userId: randomId() };
      const page = (query: HistoryQuery) => c.store.historyPage(allowAll, v, conv, query);
      const older = await page(q('older', null));
      expect(seqsOf(older)).toEqual([6n, 5n, 4n, 2n, 1n]);
      expect(older.hasMore).toBe(false);
      expect(older.nextAnchor).toBe(1n);
      expect(seqsOf(await page(q('newer', null)))).toEqual([1n, 2n, 4n, 5n, 6n]);
      expect(seqsOf(await page(q('older', 5n)))).toEqual([4n, 2n, 1n]);
      expect(seqsOf(await page(q('newer', 2n)))).toEqual([4n, 5n, 6n]);
      expect(seqsOf(await page(q('older', 3n)))).toEqual([2n, 1n]);
      expect(seqsOf(await page(q('newer', 3n)))).toEqual([4n, 5n, 6n]);
      const end = await page(q('newer', 6n));
      expect(end).toEqual({ items: [], hasMore: false, nextAnchor: null });
      expect(await page(q('older', 1n))).toEqual({ items: [], hasMore: false, nextAnchor: null });
    });

    it('an empty conversation gives an empty page', async () => {
      const c = ctx();
      const v = { tenantId: c.tenantId, userId: randomId() };
      expect(await c.store.historyPage(allowAll, v, randomId(), q('older', null))).toEqual({ items: [], hasMore: false, nextAnchor: null });
    });

    it('item budget: pages of 2 walk the whole history, hasMore and nextAnchor chain', async () => {
      const c = ctx();
      const { conv } = await historyFixture(c);
      const v = { tenantId: c.tenantId, userId: randomId() };
      const walk: bigint[][] = [];
      let anchor: bigint | null = null;
      for (;;) {
        const p = await c.store.historyPage(allowAll, v, conv, q('older', anchor, 2));
        walk.push(seqsOf(p));
        if (!p.hasMore) break;
        anchor = p.nextAnchor;
        expect(anchor).toBe(p.items[p.items.length - 1]!.record.seq);
      }
      expect(walk).toEqual([[6n, 5n], [4n, 2n], [1n]]);
      const newer = await c.store.historyPage(allowAll, v, conv, q('newer', null, 3));
      expect(seqsOf(newer)).toEqual([1n, 2n, 4n]);
      expect(newer.hasMore).toBe(true);
      expect(newer.nextAnchor).toBe(4n);
    });

    it('byte budget: strict after the first item; the first item may exceed it', async () => {
      const c = ctx();
      const { conv, records } = await historyFixture(c);
      const v = { tenantId: c.tenantId, userId: randomId() };
      const size = (seq: bigint): number => encodeMessageRecord(records.get(seq)!).length;
      const page = (maxBytes: number) => c.store.historyPage(allowAll, v, conv, q('older', null, 100, maxBytes));
      const two = await page(size(6n) + size(5n));
      expect(seqsOf(two)).toEqual([6n, 5n]);
      expect(two.hasMore).toBe(true);
      expect(two.nextAnchor).toBe(5n);
      expect(seqsOf(await page(size(6n) + size(5n) - 1))).toEqual([6n]);
      const first = await page(1);
      expect(seqsOf(first)).toEqual([6n]);
      expect(first.hasMore).toBe(true);
      const all = await page(size(6n) + size(5n) + size(4n) + size(2n) + size(1n));
      expect(seqsOf(all)).toEqual([6n, 5n, 4n, 2n, 1n]);
      expect(all.hasMore).toBe(false);
      const newer = await c.store.historyPage(allowAll, v, conv, q('newer', 1n, 100, size(2n) + size(4n)));
      expect(seqsOf(newer)).toEqual([2n, 4n]);
      expect(newer.hasMore).toBe(true);
    });

    it('records come back byte for byte (the canonical encoding) and decoded equal to recordFromIntent', async () => {
      const c = ctx();
      const { conv, records } = await historyFixture(c);
      const v = { tenantId: c.tenantId, userId: randomId() };
      const p = await c.store.historyPage(allowAll, v, conv, q('newer', null));
      for (const item of p.items) {
        const expected = records.get(item.record.seq)!;
        expect(Buffer.from(item.bytes).equals(encodeMessageRecord(expected))).toBe(true);
        expect({ ...item.record, body: Buffer.from(item.record.body) }).toEqual({ ...expected, body: Buffer.from(expected.body) });
      }
    });

    it('invalid budgets → InvalidInput', async () => {
      const c = ctx();
      const v = { tenantId: c.tenantId, userId: randomId() };
      for (const bad of [q('older', null, 0), q('older', null, 1001), q('older', null, 10, 0), q('newer', null, 1.5)]) {
        await expectStoreError(c.store.historyPage(allowAll, v, randomId(), bad), InvalidInputError);
      }
    });

    it('the authorizer runs before any read: deny → Forbidden with zero reads; allow → reads happen after it', async () => {
      const c = ctx();
      const { conv } = await historyFixture(c);
      const v = { tenantId: c.tenantId, userId: randomId() };
      const reads = () => c.harness.readCount();

      const deny = new RecordingAuthorizer(false, reads);
      const before = reads();
      await expectStoreError(c.store.historyPage(deny, v, conv, q('older', null)), ForbiddenError);
      expect(reads()).toBe(before);
      expect(deny.calls).toEqual([{ viewer: v, conversationId: conv, readsAtCall: before }]);

      const allow = new RecordingAuthorizer(true, reads);
      const start = reads();
      const p = await c.store.historyPage(allow, v, conv, q('older', null));
      expect(allow.calls).toEqual([{ viewer: v, conversationId: conv, readsAtCall: start }]);
      expect(p.items).toHaveLength(5);
      expect(reads()).toBeGreaterThan(start);
    });
  });
}
