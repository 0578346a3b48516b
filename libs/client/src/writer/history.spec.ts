import { QimForbiddenError, QimProtocolError } from '../errors/qim-error';
import type { HistoryPage } from '../model/writer-model';
import { QimClient } from '../qim-client';
import type { ScriptedRequest } from '../testing/scripted-server';
import { ScriptedServer } from '../testing/scripted-server';
import { hex, messageJson } from '../testing/wire-fixtures';

const T = hex(0x7e),
  BOB = hex(0xb0),
  CONV = hex(0xc0);
const PATH = `/v1/conversations/${CONV}/messages`;

/** A conversation of `n` messages served newest first, `max_items` per page, like the writer. */
function olderPages(n: number) {
  return (r: ScriptedRequest) => {
    const top = r.query['anchor'] === undefined ? n : Number(r.query['anchor']) - 1;
    const size = Number(r.query['max_items'] ?? 50);
    const seqs = Array.from({ length: Math.min(size, top) }, (_, i) => top - i);
    const last = seqs[seqs.length - 1] ?? 1;
    return {
      status: 200,
      body: {
        conversation_id: CONV,
        direction: 'older',
        items: seqs.map((s) => messageJson(CONV, s, BOB, `m${s}`)),
        has_more: last > 1,
        next_anchor: last > 1 ? String(last) : null,
      },
    };
  };
}

describe('QimClient.history', () => {
  let server: ScriptedServer;
  let client: QimClient;
  beforeEach(async () => {
    server = await ScriptedServer.start();
    client = new QimClient({ writerUrl: server.url, mailboxUrl: server.url, token: 'secret-token', tenantId: T, userId: BOB });
  });
  afterEach(() => server.close());

  it('iterates every page, following next_anchor until has_more is false', async () => {
    server.on('GET', PATH, olderPages(7));
    const pages: HistoryPage[] = [];
    for await (const page of client.history(CONV, { maxItems: 3 })) pages.push(page);
    expect(pages.map((p) => p.items.map((m) => Number(m.seq)))).toEqual([[7, 6, 5], [4, 3, 2], [1]]);
    expect(server.requests.map((r) => r.query)).toEqual([
      { direction: 'older', max_items: '3' },
      { direction: 'older', anchor: '5', max_items: '3' },
      { direction: 'older', anchor: '2', max_items: '3' },
    ]);
    const m = pages[0]!.items[0]!;
    expect(Buffer.from(m.body).toString()).toBe('m7');
    expect(m).toMatchObject({
      conversationId: CONV,
      senderId: BOB,
      kind: 'normal',
      contentType: 'text/plain',
      retention: { kind: 'default' },
      clientMessageId: hex(0x20_007),
    });
  });

  it('stops early when the caller breaks, without fetching further pages', async () => {
    server.on('GET', PATH, olderPages(100));
    for await (const page of client.history(CONV, { maxItems: 10 })) {
      expect(page.items).toHaveLength(10);
      break;
    }
    expect(server.requests).toHaveLength(1);
  });

  it('refuses an anchor that does not move instead of looping', async () => {
    server.on('GET', PATH, [{ status: 200, body: { conversation_id: CONV, direction: 'older', items: [], has_more: true, next_anchor: '5' } }]);
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const p of client.history(CONV)) seen.push(p.items.length);
      })(),
    ).rejects.toBeInstanceOf(QimProtocolError);
    expect(server.requests).toHaveLength(2);
  });

  it("decodes items with the services' wire definition and fails closed naming the bad field", async () => {
    const bad = { ...messageJson(CONV, 2, BOB, 'x'), kind: 'shouting' };
    server.on('GET', PATH, () => ({ status: 200, body: { conversation_id: CONV, direction: 'older', items: [bad], has_more: false, next_anchor: null } }));
    const pages = client.history(CONV, { maxItems: 3 })[Symbol.asyncIterator]();
    await expect(pages.next()).rejects.toThrow(/items\[0\]\.kind/);
  });

  it('surfaces a non-member as QimForbiddenError', async () => {
    server.on('GET', PATH, [{ status: 403, body: { code: 'FORBIDDEN', message: 'not a member' } }]);
    await expect(client.historyPage(CONV)).rejects.toBeInstanceOf(QimForbiddenError);
  });
});
