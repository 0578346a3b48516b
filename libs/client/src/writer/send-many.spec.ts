import {
  QimAbortedError,
  QimApiError,
  QimArgumentError,
  QimConflictError,
  QimInvalidInputError,
  QimProtocolError,
  QimUnavailableError,
} from '../errors/qim-error';
import { QimClient } from '../qim-client';
import { ScriptedServer } from '../testing/scripted-server';
import { hex } from '../testing/wire-fixtures';

const T = hex(0x7e),
  ALICE = hex(0xa1),
  CONV = hex(0xc0);
const ok = (seq: number, replay = false) => ({
  status: 200,
  body: { conversation_id: CONV, seq: String(seq), message_id: hex(0x700 + seq), created_at: '1700000000123', replay },
});
type Sent = { messages: { client_message_id: string; body: string }[] };
const idsOf = (body: unknown) => (body as Sent).messages.map((m) => m.client_message_id);

describe('QimClient.sendMany', () => {
  let server: ScriptedServer;
  let client: QimClient;
  beforeEach(async () => {
    server = await ScriptedServer.start();
    client = new QimClient({
      writerUrl: server.url,
      mailboxUrl: server.url,
      token: 'secret-token',
      tenantId: T,
      userId: ALICE,
      retry: { attempts: 3, baseDelayMs: 5, maxDelayMs: 10 },
    });
  });
  afterEach(() => server.close());

  it('sends every input in one batch as the acting user and answers each in input order, failures typed and carrying their client message id', async () => {
    server.on('POST', '/v1/messages/batch', () => ({
      status: 200,
      body: {
        results: [
          ok(1),
          { status: 409, body: { code: 'CONFLICT', message: 'other content' } },
          ok(2, true),
          { status: 400, body: { code: 'INVALID_INPUT', message: 'messages.3.content_type: too long' } },
        ],
      },
    }));
    const given = hex(0xabc);
    const r = await client.sendMany([
      { conversationId: CONV, body: 'a' },
      { conversationId: CONV, body: 'b', clientMessageId: given },
      { conversationId: CONV, body: new Uint8Array([1, 2]), kind: 'system', retention: { kind: 'ephemeral', ttlSeconds: 60 } },
      { conversationId: CONV, body: 'd', contentType: 'x'.repeat(300) },
    ]);
    const [req] = server.requests;
    expect([req!.headers['x-qim-tenant'], req!.headers['x-qim-user']]).toEqual([T, ALICE]);
    const sent = (req!.body as Sent).messages;
    expect(sent).toHaveLength(4);
    expect(sent[1]).toEqual({
      client_message_id: given,
      conversation_id: CONV,
      kind: 'normal',
      control: false,
      content_type: 'text/plain',
      body: 'Yg==',
      retention: { kind: 'default' },
    });
    expect(sent[2]).toMatchObject({ kind: 'system', body: 'AQI=', retention: { kind: 'ephemeral', ttl_seconds: 60 } });
    const ids = idsOf(req!.body);
    expect(new Set(ids).size).toBe(4);
    expect(r.map((x) => x.clientMessageId)).toEqual(ids);
    expect(r[0]).toEqual({
      ok: true,
      clientMessageId: ids[0],
      result: { conversationId: CONV, seq: 1n, messageId: hex(0x701), createdAt: 1_700_000_000_123n, replay: false, clientMessageId: ids[0] },
    });
    expect(r[2]).toMatchObject({ ok: true, result: { seq: 2n, replay: true } });
    const conflict = r[1]!.ok ? null : r[1]!.error;
    expect(conflict).toBeInstanceOf(QimConflictError);
    expect(conflict).toMatchObject({ code: 'CONFLICT', status: 409, clientMessageId: given, requestId: req!.headers['x-request-id'] });
    const invalid = r[3]!.ok ? null : r[3]!.error;
    expect(invalid).toBeInstanceOf(QimInvalidInputError);
    expect(invalid).toMatchObject({ code: 'INVALID_INPUT', clientMessageId: ids[3] });
    expect(server.requests).toHaveLength(1);
  });

  it('sends again, with the same client message ids, only the items answered 503, until the retry policy is spent', async () => {
    const unavailable = { status: 503, body: { code: 'UNAVAILABLE', message: 'send not finished within 10000 ms' } };
    server.on('POST', '/v1/messages/batch', [
      { status: 200, body: { results: [ok(1), unavailable, unavailable] } },
      { status: 200, body: { results: [ok(2), unavailable] } },
      { status: 200, body: { results: [unavailable] } },
    ]);
    const r = await client.sendMany([1, 2, 3].map((i) => ({ conversationId: CONV, body: String(i) })));
    const rounds = server.requests.map((q) => idsOf(q.body));
    expect(rounds.map((ids) => ids.length)).toEqual([3, 2, 1]);
    expect(rounds[1]).toEqual(rounds[0]!.slice(1));
    expect(rounds[2]).toEqual(rounds[0]!.slice(2));
    expect(r.map((x) => x.ok)).toEqual([true, true, false]);
    expect(r[1]).toMatchObject({ ok: true, result: { seq: 2n, clientMessageId: rounds[0]![1] } });
    expect(r[2]!.ok ? null : r[2]!.error).toBeInstanceOf(QimUnavailableError);
    expect(r[2]).toMatchObject({ error: { code: 'UNAVAILABLE', clientMessageId: rounds[0]![2] } });
  });

  it('a refusal of the whole batch fails every item with that error, each carrying its own client message id', async () => {
    server.on('POST', '/v1/messages/batch', [
      { status: 413, body: { code: 'BATCH_TOO_LARGE', message: 'a batch of 2 sends; at most 1 (QIM_SEND_BATCH_MAX)' } },
    ]);
    const r = await client.sendMany([
      { conversationId: CONV, body: 'a' },
      { conversationId: CONV, body: 'b' },
    ]);
    const ids = idsOf(server.requests[0]!.body);
    expect(
      r.map((x) => [x.ok, !x.ok && x.error instanceof QimApiError, !x.ok && x.error.code, !x.ok && x.error.status, !x.ok && x.error.clientMessageId]),
    ).toEqual([
      [false, true, 'BATCH_TOO_LARGE', 413, ids[0]],
      [false, true, 'BATCH_TOO_LARGE', 413, ids[1]],
    ]);
    expect(server.requests).toHaveLength(1);
  });

  it('an abort fails every item with QimAbortedError carrying its client message id', async () => {
    const r = await client.sendMany([{ conversationId: CONV, body: 'a', clientMessageId: hex(0xd1) }], AbortSignal.abort());
    expect(r[0]!.ok ? null : r[0]!.error).toBeInstanceOf(QimAbortedError);
    expect(r[0]).toMatchObject({ ok: false, clientMessageId: hex(0xd1), error: { code: 'ABORTED', clientMessageId: hex(0xd1) } });
  });

  it('fails closed on an answer with the wrong number of results or a malformed result', async () => {
    server.on('POST', '/v1/messages/batch', [
      { status: 200, body: { results: [ok(1)] } },
      { status: 200, body: { results: [{ status: 200, body: { seq: 1 } }] } },
    ]);
    const short = await client.sendMany([
      { conversationId: CONV, body: 'a' },
      { conversationId: CONV, body: 'b' },
    ]);
    expect(short.map((x) => !x.ok && x.error instanceof QimProtocolError)).toEqual([true, true]);
    const bad = await client.sendMany([{ conversationId: CONV, body: 'a' }]);
    expect(bad[0]!.ok ? null : bad[0]!.error).toBeInstanceOf(QimProtocolError);
  });

  it('refuses a malformed input before sending anything, naming its index; an empty list sends nothing', async () => {
    await expect(
      client.sendMany([
        { conversationId: CONV, body: 'a' },
        { conversationId: 'C0', body: 'x' },
      ]),
    ).rejects.toThrow(QimArgumentError);
    await expect(client.sendMany([{ conversationId: CONV, body: 'a', clientMessageId: 'short' }])).rejects.toThrow('inputs[0].clientMessageId');
    expect(await client.sendMany([])).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });
});
