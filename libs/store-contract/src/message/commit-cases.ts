import { ConflictError, InvalidInputError, recordFromIntent, requestIdentity } from '@qim/store-core';
import type { Id128 } from '@qim/store-core';
import { expectStoreError } from '../support/expect-error';
import { randomId } from '../support/ids';
import { commitFully, makeRequest, makeReserve, publicationAt, recordMessage } from './message-fixtures';
import type { MessageContext } from './message-fixtures';

/** reserve, replay, conflict, load, and the happy lifecycle. */
export function commitCases(ctx: () => MessageContext): void {
  describe('reserve and replay', () => {
    it('capabilities.injectableClock matches the harness clock', () => {
      const { store, harness } = ctx();
      expect(store.capabilities.injectableClock).toBe(harness.clock !== null);
    });

    it('first reserve stores a complete RESERVED intent: identity, seq 1, candidate id/time, sorted unique recipients', async () => {
      const { store, tenantId, time } = ctx();
      const req = makeRequest(tenantId, randomId());
      const [a, b] = [randomId(), randomId()].sort() as [Id128, Id128];
      const input = { ...makeReserve(req, time.now()), recipients: [b, a, b] };
      const { snapshot, created } = await store.reserve(input);
      expect(created).toBe(true);
      expect(snapshot.state).toBe('RESERVED');
      const i = snapshot.intent;
      expect(i.key).toEqual({ tenantId, senderId: req.senderId, clientMessageId: req.clientMessageId });
      expect(Buffer.from(i.identity).equals(requestIdentity(req))).toBe(true);
      expect(i.seq).toBe(1n);
      expect(i.messageId).toBe(input.messageId);
      expect(i.createdAt).toBe(input.createdAt);
      expect(i.recipients).toEqual([a, b]);
      expect(i.publication).toBeNull();
      expect(Buffer.from(i.request.body).equals(Buffer.from(req.body))).toBe(true);
      expect(await store.loadCommit(i.key)).toEqual(snapshot);
      expect(await store.loadCommitForRequest(req)).toEqual(snapshot);
    });

    it('sequential reserves in one conversation get 1, 2, 3 (single-step allocation); conversations are independent', async () => {
      const { store, tenantId, time } = ctx();
      const conv = randomId();
      const other = randomId();
      const seqs: bigint[] = [];
      for (let k = 0; k < 3; k++) seqs.push((await store.reserve(makeReserve(makeRequest(tenantId, conv), time.now()))).snapshot.intent.seq);
      const first = (await store.reserve(makeReserve(makeRequest(tenantId, other), time.now()))).snapshot.intent.seq;
      expect(seqs).toEqual([1n, 2n, 3n]);
      expect(first).toBe(1n);
    });

    it('idempotent replay returns the first intent and its current state, whatever the new candidates', async () => {
      const { store, tenantId, time } = ctx();
      const req = makeRequest(tenantId, randomId());
      const first = await store.reserve(makeReserve(req, time.now()));
      await time.pass(5n);
      const again = await store.reserve({ request: req, messageId: randomId(), createdAt: time.now() + 1000n, recipients: [randomId()] });
      expect(again.created).toBe(false);
      expect(again.snapshot).toEqual(first.snapshot);

      await store.putRecord(first.snapshot.intent, recordFromIntent(first.snapshot.intent));
      expect((await store.reserve(makeReserve(req, time.now()))).snapshot.state).toBe('RECORDED');

      await store.markOutboxPublished(first.snapshot.intent.key, first.snapshot.intent.messageId, publicationAt(11n));
      await store.markCommitted(first.snapshot.intent.key);
      const done = await store.reserve(makeReserve(req, time.now()));
      expect(done.created).toBe(false);
      expect(done.snapshot.state).toBe('COMMITTED');
      expect(done.snapshot.intent.seq).toBe(first.snapshot.intent.seq);
      expect(done.snapshot.intent.messageId).toBe(first.snapshot.intent.messageId);
      expect(done.snapshot.intent.publication).toEqual(publicationAt(11n));
    });

    it('same key with different content → Conflict (body, kind, control, retention, conversation); nothing changes', async () => {
      const { store, tenantId, time } = ctx();
      const req = makeRequest(tenantId, randomId());
      const { snapshot } = await store.reserve(makeReserve(req, time.now()));
      const variants = [
        { ...req, body: Buffer.from('other body') },
        { ...req, kind: 'edited' as const },
        { ...req, control: true },
        { ...req, retention: { kind: 'ephemeral' as const, ttlSeconds: 60 } },
        { ...req, conversationId: randomId() },
        { ...req, contentType: 'text/markdown' },
      ];
      for (const v of variants) {
        await expectStoreError(store.reserve(makeReserve(v, time.now())), ConflictError);
        await expectStoreError(store.loadCommitForRequest(v), ConflictError);
      }
      expect(await store.loadCommit(snapshot.intent.key)).toEqual(snapshot);
    });

    it('unknown keys load as null', async () => {
      const { store, tenantId } = ctx();
      const req = makeRequest(tenantId, randomId());
      expect(await store.loadCommit({ tenantId, senderId: req.senderId, clientMessageId: req.clientMessageId })).toBeNull();
      expect(await store.loadCommitForRequest(req)).toBeNull();
    });

    it('an invalid request is refused with InvalidInput and reserves nothing', async () => {
      const { store, tenantId, time } = ctx();
      const req = makeRequest(tenantId, randomId(), { retention: { kind: 'ephemeral', ttlSeconds: 0 } });
      await expectStoreError(store.reserve(makeReserve(req, time.now())), InvalidInputError);
      expect(await store.loadCommit({ tenantId, senderId: req.senderId, clientMessageId: req.clientMessageId })).toBeNull();
    });
  });

  describe('lifecycle', () => {
    it('RESERVED → RECORDED → OUTBOXED → COMMITTED keeps the coordinates; repeats return the current snapshot', async () => {
      const { store, tenantId, time } = ctx();
      const input = makeReserve(makeRequest(tenantId, randomId()), time.now());
      const { snapshot } = await store.reserve(input);
      const intent = snapshot.intent;
      const record = recordFromIntent(intent);

      const recorded = await store.putRecord(intent, record);
      expect(recorded).toEqual({ intent, state: 'RECORDED' });
      expect(await store.putRecord(intent, record)).toEqual(recorded);

      const outboxed = await store.markOutboxPublished(intent.key, intent.messageId, publicationAt(42n));
      expect(outboxed.state).toBe('OUTBOXED');
      expect(outboxed.intent).toEqual({ ...intent, publication: publicationAt(42n) });
      const again = await store.markOutboxPublished(intent.key, intent.messageId, publicationAt(43n));
      expect(again).toEqual(outboxed);
      expect(await store.putRecord(intent, record)).toEqual(outboxed);

      const committed = await store.markCommitted(intent.key);
      expect(committed).toEqual({ intent: outboxed.intent, state: 'COMMITTED' });
      expect(await store.markCommitted(intent.key)).toEqual(committed);
      expect(await store.markOutboxPublished(intent.key, intent.messageId, publicationAt(44n))).toEqual(committed);
      expect(await store.loadCommit(intent.key)).toEqual(committed);
    });

    it('commitFully helper reaches COMMITTED (sanity of the fixtures)', async () => {
      const { store, tenantId, time } = ctx();
      const s = await commitFully(store, makeReserve(makeRequest(tenantId, randomId()), time.now()));
      expect(s.state).toBe('COMMITTED');
      expect((await recordMessage(store, makeReserve(makeRequest(tenantId, s.intent.request.conversationId), time.now()))).intent.seq).toBe(2n);
    });
  });
}
