import { ConflictError, InvalidStateError, NotFoundError, commitKeyOf, recordFromIntent, requestIdentity } from '@qim/store-core';
import type { CommitIntent, CommitSnapshot } from '@qim/store-core';
import { expectStoreError } from '../support/expect-error';
import { randomId } from '../support/ids';
import { allowAll, makeRequest, makeReserve, publicationAt } from './message-fixtures';
import type { MessageContext } from './message-fixtures';

/** Every transition refuses what its state or its inputs do not allow, and changes nothing when it does. */
export function stateGuardCases(ctx: () => MessageContext): void {
  describe('state guards', () => {
    async function reserved(): Promise<CommitSnapshot> {
      const { store, tenantId, time } = ctx();
      return (await store.reserve(makeReserve(makeRequest(tenantId, randomId()), time.now()))).snapshot;
    }

    it('putRecord with another intent → Conflict (seq, message id, created_at, recipients, request); state unchanged', async () => {
      const { store } = ctx();
      const s = await reserved();
      const i = s.intent;
      const others: CommitIntent[] = [
        { ...i, seq: i.seq + 1n },
        { ...i, messageId: randomId() },
        { ...i, createdAt: i.createdAt + 1n },
        { ...i, recipients: [randomId()] },
        { ...i, request: { ...i.request, body: Buffer.from('x') } },
      ];
      for (const other of others) await expectStoreError(store.putRecord(other, recordFromIntent(other)), ConflictError);
      expect(await store.loadCommit(i.key)).toEqual(s);
    });

    it('a putRecord refused for another seq, message id, created_at or request writes no record', async () => {
      const { store, tenantId } = ctx();
      const s = await reserved();
      const i = s.intent;
      const others: CommitIntent[] = [
        { ...i, request: { ...i.request, body: Buffer.from('forged body') } },
        { ...i, seq: i.seq + 1n },
        { ...i, messageId: randomId() },
        { ...i, createdAt: i.createdAt + 1n },
      ];
      for (const other of others) await expectStoreError(store.putRecord(other, recordFromIntent(other)), ConflictError);
      const viewer = { tenantId, userId: i.request.senderId };
      const page = await store.historyPage(allowAll, viewer, i.request.conversationId, { direction: 'newer', anchor: null, maxItems: 10, maxBytes: 1 << 20 });
      expect(page.items).toEqual([]);
      expect(await store.loadCommit(i.key)).toEqual(s);
    });

    it('putRecord with a record that is not recordFromIntent(intent) → Conflict; state unchanged', async () => {
      const { store } = ctx();
      const s = await reserved();
      const r = recordFromIntent(s.intent);
      const bad = [
        { ...r, seq: r.seq + 1n },
        { ...r, conversationId: randomId() },
        { ...r, messageId: randomId() },
        { ...r, body: Buffer.from('tampered') },
        { ...r, createdAt: r.createdAt + 1n },
      ];
      for (const rec of bad) await expectStoreError(store.putRecord(s.intent, rec), ConflictError);
      expect(await store.loadCommit(s.intent.key)).toEqual(s);
    });

    it('putRecord for an unknown key → NotFound', async () => {
      const { store } = ctx();
      const s = await reserved();
      const ghost: CommitIntent = { ...s.intent, key: { ...s.intent.key, clientMessageId: randomId() } };
      await expectStoreError(store.putRecord(ghost, recordFromIntent(ghost)), NotFoundError);
    });

    it('markOutboxPublished from RESERVED → InvalidState; wrong message id → Conflict; unknown key → NotFound', async () => {
      const { store } = ctx();
      const s = await reserved();
      await expectStoreError(store.markOutboxPublished(s.intent.key, s.intent.messageId, publicationAt(1n)), InvalidStateError);
      await store.putRecord(s.intent, recordFromIntent(s.intent));
      await expectStoreError(store.markOutboxPublished(s.intent.key, randomId(), publicationAt(1n)), ConflictError);
      await expectStoreError(store.markOutboxPublished({ ...s.intent.key, senderId: randomId() }, s.intent.messageId, publicationAt(1n)), NotFoundError);
      expect(await store.loadCommit(s.intent.key)).toEqual({ intent: s.intent, state: 'RECORDED' });
    });

    it('markCommitted before OUTBOXED → InvalidState (from RESERVED and from RECORDED); unknown key → NotFound', async () => {
      const { store } = ctx();
      const s = await reserved();
      await expectStoreError(store.markCommitted(s.intent.key), InvalidStateError);
      expect((await store.loadCommit(s.intent.key))?.state).toBe('RESERVED');
      await store.putRecord(s.intent, recordFromIntent(s.intent));
      await expectStoreError(store.markCommitted(s.intent.key), InvalidStateError);
      expect((await store.loadCommit(s.intent.key))?.state).toBe('RECORDED');
      await expectStoreError(store.markCommitted({ ...s.intent.key, clientMessageId: randomId() }), NotFoundError);
    });

    it('markPublishedAndCommitted: RESERVED → InvalidState; another intent → Conflict; unknown key → NotFound; nothing changes', async () => {
      const { store } = ctx();
      const s = await reserved();
      await expectStoreError(store.markPublishedAndCommitted(s.intent, publicationAt(1n)), InvalidStateError);
      expect(await store.loadCommit(s.intent.key)).toEqual(s);
      await store.putRecord(s.intent, recordFromIntent(s.intent));
      for (const other of [
        { ...s.intent, messageId: randomId() },
        { ...s.intent, recipients: [randomId()] },
        { ...s.intent, createdAt: s.intent.createdAt + 1n },
      ]) {
        await expectStoreError(store.markPublishedAndCommitted(other, publicationAt(1n)), ConflictError);
      }
      const ghostRequest = { ...s.intent.request, clientMessageId: randomId() };
      const ghost: CommitIntent = { ...s.intent, request: ghostRequest, key: commitKeyOf(ghostRequest), identity: requestIdentity(ghostRequest) };
      await expectStoreError(store.markPublishedAndCommitted(ghost, publicationAt(1n)), NotFoundError);
      expect(await store.loadCommit(s.intent.key)).toEqual({ intent: s.intent, state: 'RECORDED' });
    });

    it('markPublishedAndCommitted: RECORDED → COMMITTED with the publication in one step; repeats answer the same snapshot', async () => {
      const { store } = ctx();
      const s = await reserved();
      await store.putRecord(s.intent, recordFromIntent(s.intent));
      const done = await store.markPublishedAndCommitted(s.intent, publicationAt(3n));
      expect(done).toEqual({ intent: { ...s.intent, publication: publicationAt(3n) }, state: 'COMMITTED' });
      expect(await store.loadCommit(s.intent.key)).toEqual(done);
      expect(await store.markPublishedAndCommitted(s.intent, publicationAt(4n))).toEqual(done);
      expect(await store.markPublishedAndCommitted(done.intent, publicationAt(4n))).toEqual(done);
      expect(await store.markCommitted(s.intent.key)).toEqual(done);
      expect(await store.scanRecoverableCommits(s.intent.createdAt + 1n, 10)).toEqual([]);
    });

    it('markPublishedAndCommitted on an OUTBOXED commit commits it keeping the first publication', async () => {
      const { store } = ctx();
      const s = await reserved();
      await store.putRecord(s.intent, recordFromIntent(s.intent));
      await store.markOutboxPublished(s.intent.key, s.intent.messageId, publicationAt(5n));
      const done = await store.markPublishedAndCommitted(s.intent, publicationAt(6n));
      expect(done).toEqual({ intent: { ...s.intent, publication: publicationAt(5n) }, state: 'COMMITTED' });
      expect(await store.loadCommit(s.intent.key)).toEqual(done);
    });

    it('after publication the first coordinate is kept and putRecord with the reserved intent still answers', async () => {
      const { store } = ctx();
      const s = await reserved();
      await store.putRecord(s.intent, recordFromIntent(s.intent));
      const out = await store.markOutboxPublished(s.intent.key, s.intent.messageId, publicationAt(5n));
      expect(await store.putRecord(s.intent, recordFromIntent(s.intent))).toEqual(out);
      await expectStoreError(store.markOutboxPublished(s.intent.key, randomId(), publicationAt(6n)), ConflictError);
      expect((await store.loadCommit(s.intent.key))?.intent.publication).toEqual(publicationAt(5n));
    });
  });
}
