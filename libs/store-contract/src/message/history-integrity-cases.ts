import { CorruptEntryError } from '@qim/store-core';
import type { HistoryQuery } from '@qim/store-core';
import { expectStoreError } from '../support/expect-error';
import { randomId } from '../support/ids';
import { TIMED_CASE_TIMEOUT_MS } from '../support/time-control';
import { historyFixture } from './history-cases';
import { allowAll, makeRequest, makeReserve, recordMessage } from './message-fixtures';
import type { MessageContext } from './message-fixtures';

const all = (direction: 'older' | 'newer'): HistoryQuery => ({ direction, anchor: null, maxItems: 100, maxBytes: 1 << 20 });

/** Damage is surfaced, never skipped; an expired ephemeral message is not damage. */
export function historyIntegrityCases(ctx: () => MessageContext): void {
  describe('history integrity', () => {
    it('an undecodable record → CorruptEntry in both directions (never a silent skip)', async () => {
      const c = ctx();
      const { conv } = await historyFixture(c);
      const v = { tenantId: c.tenantId, userId: randomId() };
      await c.harness.corruptRecord(c.tenantId, conv, 4n);
      await expectStoreError(c.store.historyPage(allowAll, v, conv, all('older')), CorruptEntryError);
      await expectStoreError(c.store.historyPage(allowAll, v, conv, all('newer')), CorruptEntryError);
      await expectStoreError(c.store.historyPage(allowAll, v, conv, { ...all('older'), anchor: 5n, maxItems: 1 }), CorruptEntryError);
    });

    it('the byte budget bounds the records read: a damaged record past the one that ends the page is never read', async () => {
      const c = ctx();
      const { conv } = await historyFixture(c);
      const v = { tenantId: c.tenantId, userId: randomId() };
      await c.harness.corruptRecord(c.tenantId, conv, 4n);
      // A store that read `maxItems` records before cutting by bytes would decode seq 4 and fail.
      const newer = await c.store.historyPage(allowAll, v, conv, { ...all('newer'), maxBytes: 1 });
      expect([newer.items.map((i) => i.record.seq), newer.hasMore]).toEqual([[1n], true]);
      const older = await c.store.historyPage(allowAll, v, conv, { ...all('older'), maxBytes: 1 });
      expect([older.items.map((i) => i.record.seq), older.hasMore]).toEqual([[6n], true]);
      await expectStoreError(c.store.historyPage(allowAll, v, conv, { ...all('newer'), anchor: 2n, maxBytes: 1 }), CorruptEntryError);
    });

    it('a record missing behind its index row → CorruptEntry', async () => {
      const c = ctx();
      const { conv } = await historyFixture(c);
      const v = { tenantId: c.tenantId, userId: randomId() };
      await c.harness.removeRecord(c.tenantId, conv, 2n);
      await expectStoreError(c.store.historyPage(allowAll, v, conv, all('older')), CorruptEntryError);
      await expectStoreError(c.store.historyPage(allowAll, v, conv, { ...all('newer'), anchor: 1n, maxItems: 1 }), CorruptEntryError);
    });

    it(
      'an expired ephemeral message is left out (not corruption); other retention classes never expire',
      async () => {
        const c = ctx();
        const conv = randomId();
        const v = { tenantId: c.tenantId, userId: randomId() };
        const send = async (retention: Parameters<typeof makeRequest>[2]) =>
          (await recordMessage(c.store, makeReserve(makeRequest(c.tenantId, conv, retention), c.time.now()))).intent.seq;
        // A server that counts the TTL itself (Redis, Cassandra) starts it at its own write: the writes and
        // the first read must fit in it on a loaded machine (3 s did not on Cassandra), so its TTL is longer.
        const ttlSeconds = ephemeralTtlSeconds(c.time.manual, 3);
        const start = c.time.now();
        const s1 = await send({ retention: { kind: 'default' } });
        const s2 = await send({ retention: { kind: 'ephemeral', ttlSeconds } });
        const s3 = await send({ retention: { kind: 'tenant_custom' } });
        const s4 = await send({ retention: { kind: 'ephemeral', ttlSeconds } });
        const s5 = await send({ retention: { kind: 'compliance_hold' } });
        const seqs = async (query: HistoryQuery) => (await c.store.historyPage(allowAll, v, conv, query)).items.map((i) => i.record.seq);
        expect(await seqs(all('newer'))).toEqual([s1, s2, s3, s4, s5]);

        // 3 s, not 1 s: server TTLs count whole seconds, so a 1 s TTL can end within milliseconds.
        await c.time.reach(start + BigInt(ttlSeconds) * 1000n);
        expect(await seqs(all('newer'))).toEqual([s1, s3, s5]);
        expect(await seqs(all('older'))).toEqual([s5, s3, s1]);
        expect(await seqs({ ...all('older'), anchor: s3, maxItems: 1 })).toEqual([s1]);
        // Counted per message (s2, s4); server-TTL backends have nothing left to reclaim.
        const reclaimable = c.store.capabilities.injectableClock ? 2 : 0;
        expect(await c.store.gcExpiredHistory(c.time.now(), 100)).toEqual({ examined: reclaimable, reclaimed: reclaimable, more: false });
        expect(await c.store.gcExpiredHistory(c.time.now(), 100)).toEqual({ examined: 0, reclaimed: 0, more: false });
        expect(await seqs(all('newer'))).toEqual([s1, s3, s5]);

        if (c.time.manual) await c.time.pass(400n * 86_400_000n);
        expect(await seqs(all('newer'))).toEqual([s1, s3, s5]);
      },
      TIMED_CASE_TIMEOUT_MS,
    );

    it(
      'an ephemeral message is visible until its TTL has passed, then gone',
      async () => {
        const c = ctx();
        const conv = randomId();
        const v = { tenantId: c.tenantId, userId: randomId() };
        const ttlSeconds = ephemeralTtlSeconds(c.time.manual, 2);
        const start = c.time.now();
        await recordMessage(c.store, makeReserve(makeRequest(c.tenantId, conv, { retention: { kind: 'ephemeral', ttlSeconds } }), start));
        if (c.time.manual) await c.time.reach(start + BigInt(ttlSeconds) * 1000n - 1n);
        expect((await c.store.historyPage(allowAll, v, conv, all('older'))).items).toHaveLength(1);
        await c.time.reach(start + BigInt(ttlSeconds) * 1000n);
        expect((await c.store.historyPage(allowAll, v, conv, all('older'))).items).toHaveLength(0);
      },
      TIMED_CASE_TIMEOUT_MS,
    );
  });
}

/**
 * The ephemeral TTL of a case: as given on a manual clock (the case moves time itself); on a server
 * that counts the TTL from its own write, 8 s more, so the writes and the first read before it fit
 * on a loaded machine — the case then waits that long in real time.
 */
function ephemeralTtlSeconds(manual: boolean, seconds: number): number {
  return manual ? seconds : seconds + 8;
}
