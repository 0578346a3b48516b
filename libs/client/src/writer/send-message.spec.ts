import { QimAbortedError, QimArgumentError, QimConflictError, QimForbiddenError, QimProtocolError, QimUnavailableError } from '../errors/qim-error';
import { QimClient } from '../qim-client';
import { ScriptedServer } from '../testing/scripted-server';
import { hex } from '../testing/wire-fixtures';

const T = hex(0x7e),
  ALICE = hex(0xa1),
  CONV = hex(0xc0);
const answer = (clientId: unknown, replay = false) => ({
  conversation_id: CONV,
  seq: '7',
  message_id: hex(0x777),
  created_at: '1700000000123',
  replay,
  client: clientId,
});

describe('QimClient.send', () => {
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
      retry: { attempts: 4, baseDelayMs: 5, maxDelayMs: 10 },
    });
  });
  afterEach(() => server.close());

  it('generates a fresh client message id, sends as the acting user and decodes the answer', async () => {
    server.on('POST', '/v1/messages', (r) => ({ status: 200, body: answer((r.body as { client_message_id: string }).client_message_id) }));
    const r = await client.send({ conversationId: CONV, body: 'héllo' });
    const [req] = server.requests;
    const sent = req!.body as Record<string, unknown>;
    expect(sent['client_message_id']).toMatch(/^[0-9a-f]{32}$/);
    expect(sent).toEqual({
      client_message_id: r.clientMessageId,
      conversation_id: CONV,
      kind: 'normal',
      control: false,
      content_type: 'text/plain',
      body: Buffer.from('héllo').toString('base64'),
      retention: { kind: 'default' },
    });
    expect([req!.headers['x-qim-tenant'], req!.headers['x-qim-user']]).toEqual([T, ALICE]);
    expect(r).toEqual({
      conversationId: CONV,
      seq: 7n,
      messageId: hex(0x777),
      createdAt: 1_700_000_000_123n,
      replay: false,
      clientMessageId: sent['client_message_id'],
    });
    const second = await client.send({ conversationId: CONV, body: 'again' });
    expect(second.clientMessageId).not.toBe(r.clientMessageId);
  });

  it('retries a dropped connection and 503s with the SAME client message id', async () => {
    server.on('POST', '/v1/messages', [
      { drop: true },
      { status: 503, body: { code: 'UNAVAILABLE', message: 'lease lost' } },
      { status: 200, body: answer(null, true) },
    ]);
    const r = await client.send({
      conversationId: CONV,
      body: new Uint8Array([0, 1, 2]),
      kind: 'system',
      control: true,
      contentType: 'application/octet-stream',
      retention: { kind: 'ephemeral', ttlSeconds: 60 },
    });
    const ids = server.requests.map((q) => (q.body as { client_message_id: string }).client_message_id);
    expect(ids).toHaveLength(3);
    expect(new Set(ids)).toEqual(new Set([r.clientMessageId]));
    expect(server.requests[2]!.body).toMatchObject({ kind: 'system', control: true, body: 'AAEC', retention: { kind: 'ephemeral', ttl_seconds: 60 } });
    expect(r.replay).toBe(true);
  });

  it('an aborted send (held by the server, or already aborted) fails with QimAbortedError carrying its client message id', async () => {
    server.on('POST', '/v1/messages', (_r, gone) => new Promise((resolve) => gone.addEventListener('abort', () => resolve({ status: 200, body: {} }))));
    const ac = new AbortController();
    const pending = client.send({ conversationId: CONV, body: 'x' }, ac.signal).catch((e: unknown) => e);
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    ac.abort(new Error('Ctrl-C'));
    const err = await pending;
    expect(err).toBeInstanceOf(QimAbortedError);
    const sent = (server.requests[0]!.body as { client_message_id: string }).client_message_id;
    expect(err).toMatchObject({ code: 'ABORTED', clientMessageId: sent });

    const early = await client.send({ conversationId: CONV, body: 'y', clientMessageId: hex(0xdef) }, AbortSignal.abort()).catch((e: unknown) => e);
    expect(early).toMatchObject({ code: 'ABORTED', clientMessageId: hex(0xdef) });
  });

  it("a send's attempt outlasts the reads' bound (sendTimeoutMs): it waits for the writer's own deadline answer", async () => {
    let release: () => void = () => undefined;
    server.on(
      'POST',
      '/v1/messages',
      () => new Promise((resolve) => (release = () => resolve({ status: 503, body: { code: 'UNAVAILABLE', message: 'send not finished within 10000 ms' } }))),
    );
    server.on(
      'GET',
      /\/v1\/conversations\/.*\/messages/,
      (_r, gone) => new Promise((resolve) => gone.addEventListener('abort', () => resolve({ status: 200, body: {} }))),
    );
    const quick = new QimClient({
      writerUrl: server.url,
      mailboxUrl: server.url,
      token: 't',
      tenantId: T,
      userId: ALICE,
      timeoutMs: 50,
      sendTimeoutMs: 60_000,
      retry: { attempts: 1 },
    });
    await expect(quick.historyPage(CONV)).rejects.toMatchObject({ code: 'TIMEOUT' });
    const sending = quick.send({ conversationId: CONV, body: 'x' }).catch((e: unknown) => e);
    while (server.requestsTo('POST', '/v1/messages').length === 0) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 200));
    release();
    expect(await sending).toMatchObject({ code: 'UNAVAILABLE', status: 503 });
  });

  it('keeps a given client message id, and reports it on the error when every attempt failed', async () => {
    server.on('POST', '/v1/messages', [{ status: 503, body: { code: 'UNAVAILABLE', message: 'no lease' } }]);
    const err = await client.send({ conversationId: CONV, body: 'x', clientMessageId: hex(0xabc) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QimUnavailableError);
    expect(err).toMatchObject({ code: 'UNAVAILABLE', status: 503, clientMessageId: hex(0xabc) });
    expect(server.requests.map((q) => (q.body as { client_message_id: string }).client_message_id)).toEqual(Array(4).fill(hex(0xabc)));
  });

  it('surfaces 409 as QimConflictError and 403 as QimForbiddenError with the server code, without retrying', async () => {
    server.on('POST', '/v1/messages', [
      { status: 409, body: { code: 'CONFLICT', message: 'client id reused with other content' } },
      { status: 403, body: { code: 'FORBIDDEN', message: 'not a member' } },
    ]);
    const conflict = await client.send({ conversationId: CONV, body: 'x' }).catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(QimConflictError);
    expect(conflict).toMatchObject({ code: 'CONFLICT', status: 409, message: 'client id reused with other content' });
    expect((conflict as QimConflictError).requestId).toBe(server.requests[0]!.headers['x-request-id']);
    const forbidden = await client.send({ conversationId: CONV, body: 'x' }).catch((e: unknown) => e);
    expect(forbidden).toBeInstanceOf(QimForbiddenError);
    expect(forbidden).toMatchObject({ code: 'FORBIDDEN', status: 403 });
    expect(server.requests).toHaveLength(2);
  });

  it('refuses malformed ids and a missing acting user before sending anything', async () => {
    await expect(client.send({ conversationId: 'C0', body: 'x' })).rejects.toBeInstanceOf(QimArgumentError);
    await expect(client.send({ conversationId: CONV, body: 'x', clientMessageId: 'short' })).rejects.toThrow('clientMessageId');
    const anonymous = new QimClient({ writerUrl: server.url, mailboxUrl: server.url, token: 't', tenantId: T });
    await expect(anonymous.send({ conversationId: CONV, body: 'x' })).rejects.toThrow('userId');
    expect(server.requests).toHaveLength(0);
  });

  it('fails closed on an answer missing a field', async () => {
    server.on('POST', '/v1/messages', [{ status: 200, body: { conversation_id: CONV, seq: 7, message_id: hex(1), created_at: '1', replay: false } }]);
    const err = await client.send({ conversationId: CONV, body: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QimProtocolError);
    expect((err as Error).message).toContain('send.seq');
  });
});
