import { ConflictError, InvalidStateError, NotFoundError, recordFromIntent } from '@qim/store-core';
import type { CommitIntent, CommitSnapshot } from '@qim/store-core';
import { expectStoreError } from '../support/expect-error';
import { randomId } from '../support/ids';
import { makeRequest, makeReserve, publicationAt } from './message-fixtures';
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
      await expectStoreError(
        store.markOutboxPublished({ ...s.intent.key, senderId: randomId() }, s.intent.messageId, publicationAt(1n)),
        NotFoundError,
      );
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
