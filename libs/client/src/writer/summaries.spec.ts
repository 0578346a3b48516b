import { QimArgumentError } from '../errors/qim-error';
import { QimClient } from '../qim-client';
import { ScriptedServer } from '../testing/scripted-server';
import { hex, messageJson } from '../testing/wire-fixtures';

const T = hex(0x7e),
  BOB = hex(0xb0),
  C1 = hex(0xc1),
  C2 = hex(0xc2);

describe('QimClient.summaries', () => {
  let server: ScriptedServer;
  let client: QimClient;
  beforeEach(async () => {
    server = await ScriptedServer.start();
    client = new QimClient({ writerUrl: server.url, mailboxUrl: server.url, token: 'secret-token', tenantId: T, userId: BOB });
  });
  afterEach(() => server.close());

  it('sends read positions as u64 strings and decodes head, last message and unread count', async () => {
    server.on('POST', '/v1/summaries', [
      {
        status: 200,
        body: {
          summaries: [
            { conversation_id: C1, head_seq: '9', last: messageJson(C1, 9, BOB, 'nine'), unread: 4, precise: true },
            { conversation_id: C2, head_seq: '0', last: null, unread: 0, precise: true },
          ],
        },
      },
    ]);
    const s = await client.summaries([{ conversationId: C1, readSeq: 5n }, { conversationId: C2 }]);
    expect(server.requests[0]!.body).toEqual({ conversations: [{ conversation_id: C1, read_seq: '5' }, { conversation_id: C2 }] });
    expect(s.map((x) => [x.conversationId, x.headSeq, x.last?.seq ?? null, x.unread])).toEqual([
      [C1, 9n, 9n, 4],
      [C2, 0n, null, 0],
    ]);
  });

  it('refuses an empty request and a negative read position before sending', async () => {
    await expect(client.summaries([])).rejects.toBeInstanceOf(QimArgumentError);
    await expect(client.summaries([{ conversationId: C1, readSeq: -1n }])).rejects.toThrow('readSeq');
    expect(server.requests).toHaveLength(0);
  });
});
