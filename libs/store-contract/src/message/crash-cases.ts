import { recordFromIntent } from '@qim/store-core';
import type { HistoryItem, Id128, MessageReads } from '@qim/store-core';
import { MESSAGE_CRASH_POINTS, MESSAGE_CRASH_TEXT } from '../harness';
import { randomId } from '../support/ids';
import { TIMED_CASE_TIMEOUT_MS } from '../support/time-control';
import { allowAll, makeRequest, makeReserve, publicationAt } from './message-fixtures';
import type { MessageContext } from './message-fixtures';

async function historyOf(store: MessageReads, tenantId: Id128, conv: Id128): Promise<readonly HistoryItem[]> {
  return (await store.historyPage(allowAll, { tenantId, userId: randomId() }, conv, { direction: 'newer', anchor: null, maxItems: 100, maxBytes: 1 << 20 }))
    .items;
}

/**
 * A writer killed inside a store call (recovery entry → seq → commit inside `reserve`; record →
 * index → RECORDED inside `putRecord`): whatever it left, the recovery scan finds a durable commit
 * or passes it safely, the client's retry or the recovery runner finishes the commit exactly once,
 * history never shows damage or a second message, and no seq is handed out twice.
 */
export function crashCases(ctx: () => MessageContext): void {
  describe('crashes inside a store call', () => {
    it.each(MESSAGE_CRASH_POINTS.map((p) => [p]))(
      'crash at %s: scan and retry finish the commit once; no damage, no seq reused',
      async (point) => {
        const c = ctx();
        const { dying, healthy } = await c.harness.openCrashPair(point);
        const conv = randomId();
        const req = makeRequest(c.tenantId, conv);
        // old enough for the recovery scan (its grace) without waiting
        const input = makeReserve(req, c.time.now() - 60_000n);
        const crashed = point.startsWith('reserve')
          ? dying.reserve(input)
          : healthy.reserve(input).then((r) => dying.putRecord(r.snapshot.intent, recordFromIntent(r.snapshot.intent)));
        await expect(crashed).rejects.toThrow(`${MESSAGE_CRASH_TEXT} ${point}`);

        // what the crash left is never shown as damage: no error, at most the message itself
        const left = await historyOf(healthy, c.tenantId, conv);
        if (point.startsWith('reserve')) expect(left).toEqual([]);
        else expect(left.length).toBeLessThanOrEqual(1);

        // the recovery scan returns the commit when it is durable (RESERVED), never anything else
        const found = (await healthy.scanRecoverableCommits(c.time.now() - 30_000n, 100)).filter((s) => s.intent.key.tenantId === c.tenantId);
        const durable = point === 'reserve:after-commit' || point.startsWith('put-record');
        expect(found.length).toBeLessThanOrEqual(1);
        for (const s of found) {
          expect(s.state).toBe('RESERVED');
          expect(s.intent.key).toEqual({ tenantId: req.tenantId, senderId: req.senderId, clientMessageId: req.clientMessageId });
        }
        if (durable) expect(found).toHaveLength(1);

        // the client's retry (same request) answers one RESERVED commit; recovery then records and commits it
        const retry = await healthy.reserve(input);
        expect(retry.snapshot.state).toBe('RESERVED');
        if (found.length === 1) expect(retry.snapshot).toEqual(found[0]);
        const intent = retry.snapshot.intent;
        // a seq the dead reserve spent is a hole, never reused; a recorded one is the commit's own
        expect([1n, 2n]).toContain(intent.seq);
        if (!point.startsWith('reserve')) expect(intent.seq).toBe(1n);
        expect(await healthy.putRecord(intent, recordFromIntent(intent))).toEqual({ intent, state: 'RECORDED' });
        const done = await healthy.markPublishedAndCommitted(intent, publicationAt(5n));
        expect(done.state).toBe('COMMITTED');
        expect(await healthy.reserve(input)).toEqual({ snapshot: done, created: false });

        expect((await historyOf(healthy, c.tenantId, conv)).map((i) => i.record)).toEqual([recordFromIntent(intent)]);
        expect((await healthy.scanRecoverableCommits(c.time.now(), 100)).filter((s) => s.intent.key.tenantId === c.tenantId)).toEqual([]);
        const next = await healthy.reserve(makeReserve(makeRequest(c.tenantId, conv), c.time.now()));
        expect(next.snapshot.intent.seq > intent.seq).toBe(true);
      },
      TIMED_CASE_TIMEOUT_MS,
    );
  });
}
