// The client itself never imports the server stack; its spec runs the services' (Fastify) to talk to.
// eslint-disable-next-line @nx/enforce-module-boundaries
import fastify from 'fastify';
import type { AddressInfo } from 'node:net';
import { QimProtocolError, QimTransportError, QimUnavailableError } from '../errors/qim-error';
import { HttpTransport } from './http-transport';
import type { TransportOptions } from './http-transport';
import { NO_RETRY } from './retry-policy';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A Fastify server like the services' (keep-alive, JSON), counting connections and requests in flight. */
async function startServer(keepAliveTimeout = 72_000) {
  const app = fastify({ keepAliveTimeout });
  const stats = { connections: 0, inFlight: 0, maxInFlight: 0, openSockets: 0, maxOpenSockets: 0 };
  app.server.on('connection', (socket) => {
    stats.connections++;
    stats.maxOpenSockets = Math.max(stats.maxOpenSockets, ++stats.openSockets);
    socket.on('close', () => stats.openSockets--);
  });
  app.addHook('onRequest', async () => {
    stats.maxInFlight = Math.max(stats.maxInFlight, ++stats.inFlight);
  });
  app.addHook('onResponse', async () => {
    stats.inFlight--;
  });
  app.post('/echo', async (req) => ({ got: req.body, id: req.headers['x-request-id'], auth: req.headers['authorization'] }));
  app.get('/hold/:ms', async (req) => {
    await sleep(Number((req.params as { ms: string }).ms));
    return { held: true };
  });
  let unavailable = 0;
  app.get('/flaky', async (_req, reply) =>
    unavailable-- > 0 ? reply.code(503).header('retry-after', '0').send({ code: 'UNAVAILABLE', message: 'later' }) : { ok: true },
  );
  app.get('/unavailable-twice', async () => {
    unavailable = 2;
    return { armed: true };
  });
  app.get('/not-json', async (_req, reply) => reply.type('text/html').send('<html>proxy error</html>'));
  app.get('/cut', (_req, reply) => {
    reply.hijack();
    reply.raw.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
    reply.raw.write('{"partial":');
    setTimeout(() => reply.raw.destroy(), 20);
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, stats };
}

const transports: [string, Partial<TransportOptions>][] = [
  ['node:http (default)', {}],
  ['fetch (injected)', { fetch: globalThis.fetch }],
];

describe.each(transports)('HttpTransport over %s against Fastify', (_name, extra) => {
  let server: Awaited<ReturnType<typeof startServer>>;
  const transport = (o: Partial<TransportOptions> = {}) =>
    new HttpTransport({ baseUrl: `${server.url}/`, token: 'tok', timeoutMs: 5_000, retry: NO_RETRY, ...extra, ...o });
  beforeEach(async () => {
    server = await startServer();
  });
  afterEach(async () => {
    await server.app.close();
  });

  it('sends JSON with its byte length, the token and one request id', async () => {
    const t = transport();
    for (let i = 0; i < 5; i++) {
      const a = await t.call({ method: 'POST', path: '/echo', body: { text: 'héllo ✓', i }, auth: true });
      expect(a.status).toBe(200);
      expect(a.body).toEqual({ got: { text: 'héllo ✓', i }, id: a.call.requestId, auth: 'Bearer tok' });
      expect(a.call.requestId).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('retries 503 with the same request id and answers the decoded body', async () => {
    const t = transport({ retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 } });
    await t.call({ method: 'GET', path: '/unavailable-twice', auth: false });
    const a = await t.call({ method: 'GET', path: '/flaky', auth: false });
    expect(a.body).toEqual({ ok: true });
    await t.call({ method: 'GET', path: '/unavailable-twice', auth: false });
    const err = await transport()
      .call({ method: 'GET', path: '/flaky', auth: false })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QimUnavailableError);
  });

  it('bounds an attempt: a held answer becomes a TIMEOUT transport error', async () => {
    const t0 = performance.now();
    const err = await transport({ timeoutMs: 150 })
      .call({ method: 'GET', path: '/hold/800', auth: false })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QimTransportError);
    expect(err).toMatchObject({ code: 'TIMEOUT', attempts: 1 });
    expect(performance.now() - t0).toBeLessThan(2_000);
  });

  it("ends on the caller's abort with QimAbortedError (the reason as cause), and never retries it", async () => {
    const ac = new AbortController();
    const reason = new Error('caller gave up');
    const call = transport({ retry: { attempts: 5, baseDelayMs: 1, maxDelayMs: 1 } }).call({
      method: 'GET',
      path: '/hold/800',
      auth: false,
      signal: ac.signal,
    });
    await sleep(50);
    ac.abort(reason);
    await expect(call).rejects.toMatchObject({ code: 'ABORTED', cause: reason });
  });

  it('reports a refused connection and an answer cut short as TRANSPORT errors, and a non-JSON answer as BAD_RESPONSE', async () => {
    const refused = await new HttpTransport({ baseUrl: 'http://127.0.0.1:1', token: 't', timeoutMs: 2_000, retry: NO_RETRY, ...extra })
      .call({ method: 'GET', path: '/x', auth: false })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'TRANSPORT', attempts: 1 });
    const cut = await transport()
      .call({ method: 'GET', path: '/cut', auth: false })
      .catch((e: unknown) => e);
    expect(cut).toBeInstanceOf(QimTransportError);
    expect(cut).toMatchObject({ code: 'TRANSPORT' });
    const html = await transport()
      .call({ method: 'GET', path: '/not-json', auth: false })
      .catch((e: unknown) => e);
    expect(html).toBeInstanceOf(QimProtocolError);
  });

  it('does not reuse a connection the server closed while idle', async () => {
    await server.app.close();
    server = await startServer(100);
    const t = transport();
    await t.call({ method: 'GET', path: '/hold/0', auth: false });
    await sleep(300);
    const a = await t.call({ method: 'GET', path: '/hold/0', auth: false });
    expect(a.body).toEqual({ held: true });
    expect(server.stats.connections).toBe(2);
  });
});

describe('HttpTransport over node:http: kept-alive, bounded sockets', () => {
  it('reuses one kept-alive connection for calls one after another', async () => {
    const server = await startServer();
    try {
      const t = new HttpTransport({ baseUrl: server.url, token: 't', timeoutMs: 5_000, retry: NO_RETRY });
      for (let i = 0; i < 5; i++) await t.call({ method: 'POST', path: '/echo', body: { i }, auth: true });
      expect(server.stats.connections).toBe(1);
    } finally {
      await server.app.close();
    }
  });

  it('opens at most maxSockets connections per origin; further calls wait for one', async () => {
    const server = await startServer();
    try {
      const t = new HttpTransport({ baseUrl: server.url, token: 't', timeoutMs: 5_000, retry: NO_RETRY, maxSockets: 2 });
      const answers = await Promise.all(Array.from({ length: 6 }, () => t.call({ method: 'GET', path: '/hold/50', auth: false })));
      expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
      expect(server.stats.maxInFlight).toBe(2);
      expect(server.stats.maxOpenSockets).toBe(2);
    } finally {
      await server.app.close();
    }
  });
});
