import { ConflictError, recordFromIntent } from '@qim/store-core';
import type { HistoryQuery, Id128 } from '@qim/store-core';
import { expectStoreError } from '../support/expect-error';
import { randomId } from '../support/ids';
import { TIMED_CASE_TIMEOUT_MS } from '../support/time-control';
import { allowAll, makeRequest, makeReserve, recordMessage } from './message-fixtures';
import type { MessageContext } from './message-fixtures';

const newest: HistoryQuery = { direction: 'newer', anchor: null, maxItems: 100, maxBytes: 1 << 20 };

/**
 * What `putRecord` may write: never over another message's record (a seq handed out twice — a
 * server that lost an acknowledged increment — fails closed), and an Ephemeral record lives until
 * `createdAt + ttl`, however late it is written (recovery never extends a message's life).
 */
export function recordWriteCases(ctx: () => MessageContext): void {
  async function historyOf(c: MessageContext, conv: Id128) {
    return (await c.store.historyPage(allowAll, { tenantId: c.tenantId, userId: randomId() }, conv, newest)).items;
  }

  describe('record writes', () => {
    it('putRecord of another commit at a seq that already holds a record → Conflict; the first record stays, the second commit stays RESERVED', async () => {
      const c = ctx();
      const conv = randomId();
      const first = await recordMessage(c.store, makeReserve(makeRequest(c.tenantId, conv), c.time.now()));
      await c.harness.rewindSequence(c.tenantId, conv, first.intent.seq - 1n);
      const second = (await c.store.reserve(makeReserve(makeRequest(c.tenantId, conv), c.time.now()))).snapshot;
      // the damage really handed the seq out twice
      expect(second.intent.seq).toBe(first.intent.seq);
      expect(second.intent.messageId).not.toBe(first.intent.messageId);

      await expectStoreError(c.store.putRecord(second.intent, recordFromIntent(second.intent)), ConflictError);
      // another writer process (no cached state) is refused the same way
      const peer = await c.harness.openStore();
      await expectStoreError(peer.putRecord(second.intent, recordFromIntent(second.intent)), ConflictError);

      expect(await c.store.loadCommit(second.intent.key)).toEqual(second);
      expect(await c.store.loadCommit(first.intent.key)).toEqual(first);
      const items = await historyOf(c, conv);
      expect(items.map((i) => i.record)).toEqual([recordFromIntent(first.intent)]);
      // the first commit's own rewrite (a retry) still answers
      expect(await c.store.putRecord(first.intent, recordFromIntent(first.intent))).toEqual(first);
    });

    it(
      'an Ephemeral record written late expires at createdAt + ttl, not at write time + ttl',
      async () => {
        const c = ctx();
        const conv = randomId();
        // created 2.5 s before it is reserved and recorded (a slow writer, or recovery): the commit facts
        // still count from the reserve, the message's life from createdAt
        const createdAt = c.time.now() - 2_500n;
        const { snapshot } = await c.store.reserve(makeReserve(makeRequest(c.tenantId, conv, { retention: { kind: 'ephemeral', ttlSeconds: 6 } }), createdAt));
        expect(await c.store.putRecord(snapshot.intent, recordFromIntent(snapshot.intent))).toEqual({ intent: snapshot.intent, state: 'RECORDED' });
        expect((await historyOf(c, conv)).map((i) => i.record.seq)).toEqual([snapshot.intent.seq]);
        // server TTLs are whole seconds and may end earlier than createdAt + ttl, never later; on real
        // time a write-time origin would end no earlier than createdAt + 7.5 s, past the check below
        // (createdAt + 6 s + the real-time margin)
        if (c.time.manual) {
          await c.time.reach(createdAt + 5_999n);
          expect(await historyOf(c, conv)).toHaveLength(1);
        }
        await c.time.reach(createdAt + 6_000n);
        expect(await historyOf(c, conv)).toEqual([]);
      },
      TIMED_CASE_TIMEOUT_MS,
    );

    it(
      'an Ephemeral record whose life ended before it is written is never visible; the commit still moves to RECORDED',
      async () => {
        const c = ctx();
        const conv = randomId();
        const createdAt = c.time.now() - 1_500n;
        const { snapshot } = await c.store.reserve(makeReserve(makeRequest(c.tenantId, conv, { retention: { kind: 'ephemeral', ttlSeconds: 1 } }), createdAt));
        expect(await c.store.putRecord(snapshot.intent, recordFromIntent(snapshot.intent))).toEqual({ intent: snapshot.intent, state: 'RECORDED' });
        expect(await historyOf(c, conv)).toEqual([]);
        await c.time.pass(2_000n);
        expect(await historyOf(c, conv)).toEqual([]);
        // a later message of the conversation is unaffected
        const later = await recordMessage(c.store, makeReserve(makeRequest(c.tenantId, conv), c.time.now()));
        expect((await historyOf(c, conv)).map((i) => i.record.seq)).toEqual([later.intent.seq]);
      },
      TIMED_CASE_TIMEOUT_MS,
    );
  });
}
