import { recordFromIntent } from '@qim/store-core';
import type { Id128, MessageRecord } from '@qim/store-core';
import { randomId } from '../support/ids';
import { makeRequest, makeReserve, recordMessage } from './message-fixtures';
import type { MessageContext } from './message-fixtures';
import { UNREAD_VECTORS } from './unread-vectors';
import type { UnreadVector } from './unread-vectors';

/** Writes a vector's messages into a fresh conversation (seq i+1 for message i); returns the newest record. */
async function writeVector(c: MessageContext, viewer: Id128, conv: Id128, v: UnreadVector): Promise<MessageRecord | null> {
  let last: MessageRecord | null = null;
  for (const m of v.messages) {
    const req = makeRequest(c.tenantId, conv, { senderId: m.from === 'self' ? viewer : randomId(), kind: m.kind, control: m.control });
    const input = makeReserve(req, c.time.now());
    if (!m.recorded) {
      await c.store.reserve(input);
      continue;
    }
    last = recordFromIntent((await recordMessage(c.store, input)).intent);
  }
  return last;
}

/** `conversationSummaries` against the shared unread table, plus ordering and `last`. */
export function summaryCases(ctx: () => MessageContext): void {
  describe('conversation summaries (shared unread vectors)', () => {
    for (const v of UNREAD_VECTORS) {
      it(v.name, async () => {
        const c = ctx();
        const viewer = randomId();
        const conv = randomId();
        const last = await writeVector(c, viewer, conv, v);
        const [s] = await c.store.conversationSummaries({ tenantId: c.tenantId, userId: viewer }, [{ conversationId: conv, readSeq: v.readSeq }]);
        expect({ headSeq: s!.headSeq, unread: s!.unread, precise: s!.precise }).toEqual(v.expected);
        expect(s!.conversationId).toBe(conv);
        if (last === null) expect(s!.last).toBeNull();
        else expect({ ...s!.last!, body: Buffer.from(s!.last!.body) }).toEqual({ ...last, body: Buffer.from(last.body) });
      });
    }

    it('answers in input order, one summary per query, unknown conversations empty', async () => {
      const c = ctx();
      const viewer = randomId();
      const [a, b, unknown] = [randomId(), randomId(), randomId()];
      await writeVector(c, viewer, a, UNREAD_VECTORS[1]!);
      await writeVector(c, viewer, b, UNREAD_VECTORS[2]!);
      const out = await c.store.conversationSummaries({ tenantId: c.tenantId, userId: viewer }, [
        { conversationId: b, readSeq: 0n },
        { conversationId: unknown, readSeq: 0n },
        { conversationId: a, readSeq: 1n },
      ]);
      expect(out.map((s) => [s.conversationId, s.headSeq, s.unread, s.precise])).toEqual([
        [b, 4n, 1, true],
        [unknown, 0n, 0, true],
        [a, 3n, 2, true],
      ]);
      expect(await c.store.conversationSummaries({ tenantId: c.tenantId, userId: viewer }, [])).toEqual([]);
    });

    it('another tenant sees nothing of this conversation', async () => {
      const c = ctx();
      const viewer = randomId();
      const conv = randomId();
      await writeVector(c, viewer, conv, UNREAD_VECTORS[1]!);
      const [s] = await c.store.conversationSummaries({ tenantId: randomId(), userId: viewer }, [{ conversationId: conv, readSeq: 0n }]);
      expect(s).toEqual({ conversationId: conv, headSeq: 0n, last: null, unread: 0, precise: true });
    });
  });
}
