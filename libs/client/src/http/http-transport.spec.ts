import { QimAbortedError, QimApiError, QimProtocolError, QimTransportError, QimUnavailableError } from '../errors/qim-error';
import { ScriptedServer } from '../testing/scripted-server';
import { HttpTransport } from './http-transport';

const FAST = { attempts: 3, baseDelayMs: 5, maxDelayMs: 20 };

describe('HttpTransport against a real HTTP server', () => {
  let server: ScriptedServer;
  const transport = (over: Partial<ConstructorParameters<typeof HttpTransport>[0]> = {}) =>
    new HttpTransport({ baseUrl: `${server.url}/`, token: 'tok-123', timeoutMs: 2_000, retry: FAST, ...over });

  beforeEach(async () => {
    server = await ScriptedServer.start();
  });
  afterEach(() => server.close());

  it('sends the token, a request id, the JSON body and the query; returns the parsed answer', async () => {
    server.on('POST', '/v1/x', (r) => ({ status: 200, body: { echo: r.body, q: r.query } }));
    const a = await transport().call({ method: 'POST', path: '/v1/x', query: { a: 1, b: undefined }, body: { k: 'v' }, auth: true });
    expect(a.body).toEqual({ echo: { k: 'v' }, q: { a: '1' } });
    const [req] = server.requests;
    expect(req!.headers['authorization']).toBe('Bearer tok-123');
    expect(req!.headers['content-type']).toBe('application/json');
    expect(a.call.requestId).toBe(req!.headers['x-request-id']);
    expect(a.call).toMatchObject({ method: 'POST', path: '/v1/x?a=1' });
  });

  it('sends no token to unauthenticated routes', async () => {
    server.on('GET', '/readyz', [{ status: 200, body: {} }]);
    await transport().call({ method: 'GET', path: '/readyz', auth: false });
    expect(server.requests[0]!.headers['authorization']).toBeUndefined();
  });

  it('retries a 503 with the identical request (same body, same request id) until it succeeds', async () => {
    server.on('POST', '/v1/x', [
      { status: 503, body: { code: 'UNAVAILABLE', message: 'lease lost' } },
      { status: 200, body: { ok: true } },
    ]);
    const a = await transport().call({ method: 'POST', path: '/v1/x', body: { id: 'abc' }, auth: true });
    expect(a.body).toEqual({ ok: true });
    const reqs = server.requestsTo('POST', '/v1/x');
    expect(reqs).toHaveLength(2);
    expect(reqs[1]!.body).toEqual(reqs[0]!.body);
    expect(reqs[1]!.headers['x-request-id']).toBe(reqs[0]!.headers['x-request-id']);
  });

  it('gives up on 503 after the allowed attempts with a typed error carrying code, status and request id', async () => {
    server.on('GET', '/v1/x', [{ status: 503, body: { code: 'UNAVAILABLE', message: 'not now' } }]);
    const err = await transport()
      .call({ method: 'GET', path: '/v1/x', auth: true })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QimUnavailableError);
    expect(err).toMatchObject({ code: 'UNAVAILABLE', status: 503, message: 'not now' });
    expect((err as QimUnavailableError).requestId).toBe(server.requests[0]!.headers['x-request-id']);
    expect(server.requests).toHaveLength(3);
  });

  it('retries a dropped connection and then succeeds', async () => {
    server.on('GET', '/v1/x', [{ drop: true }, { status: 200, body: { n: 2 } }]);
    const a = await transport().call({ method: 'GET', path: '/v1/x', auth: true });
    expect(a.body).toEqual({ n: 2 });
    expect(server.requests).toHaveLength(2);
  });

  it('reports a refused connection as TRANSPORT after every attempt', async () => {
    const url = server.url;
    await server.close();
    const err = await new HttpTransport({ baseUrl: url, token: 't', timeoutMs: 1_000, retry: FAST })
      .call({ method: 'GET', path: '/v1/x', auth: true })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QimTransportError);
    expect(err).toMatchObject({ code: 'TRANSPORT', status: null, attempts: 3 });
    server = await ScriptedServer.start();
  });

  it('bounds each attempt: a server that never answers is a TIMEOUT', async () => {
    server.on('GET', '/v1/slow', (_r, gone) => new Promise((resolve) => gone.addEventListener('abort', () => resolve({ status: 200, body: {} }))));
    const err = await transport({ timeoutMs: 100, retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 1 } })
      .call({ method: 'GET', path: '/v1/slow', auth: true })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'TIMEOUT', attempts: 2 });
  });

  it('honours Retry-After, capped by the policy', async () => {
    server.on('GET', '/v1/x', [
      { status: 503, body: { code: 'UNAVAILABLE', message: 'x' }, headers: { 'retry-after': '0' } },
      { status: 200, body: {} },
    ]);
    const started = Date.now();
    await transport({ retry: { attempts: 2, baseDelayMs: 5_000, maxDelayMs: 5_000 } }).call({ method: 'GET', path: '/v1/x', auth: true });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('does not retry other error statuses', async () => {
    server.on('GET', '/v1/x', [{ status: 500, body: { code: 'INTERNAL', message: 'internal error' } }]);
    const err = await transport()
      .call({ method: 'GET', path: '/v1/x', auth: true })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QimApiError);
    expect(err).toMatchObject({ code: 'INTERNAL', status: 500 });
    expect(server.requests).toHaveLength(1);
  });

  it('answers an accepted error status as a value', async () => {
    server.on('GET', '/readyz', [{ status: 503, body: { status: 'not_ready' } }]);
    const a = await transport().call({ method: 'GET', path: '/readyz', auth: false, accept: [503] });
    expect(a).toMatchObject({ status: 503, body: { status: 'not_ready' } });
    expect(server.requests).toHaveLength(1);
  });

  it('fails closed on a 200 that is not JSON, and names a non-JSON error HTTP_<status>', async () => {
    server.on('GET', '/v1/text', [{ status: 200, body: 'hello' }]);
    server.on('GET', '/v1/gateway', [{ status: 502, body: '<html>bad gateway</html>' }]);
    await expect(transport().call({ method: 'GET', path: '/v1/text', auth: true })).rejects.toBeInstanceOf(QimProtocolError);
    await expect(transport().call({ method: 'GET', path: '/v1/gateway', auth: true })).rejects.toMatchObject({ code: 'HTTP_502', status: 502 });
  });

  it('honours Retry-After: the next attempt comes no sooner than the server asked, for 503 and 429 alike', async () => {
    for (const status of [503, 429]) {
      server.on('GET', '/v1/later', [
        { status, body: { code: 'UNAVAILABLE', message: 'later' }, headers: { 'retry-after': '1' } },
        { status: 200, body: { ok: true } },
      ]);
      const a = await transport().call({ method: 'GET', path: '/v1/later', auth: true });
      expect(a.body).toEqual({ ok: true });
      const [first, second] = server.requestsTo('GET', '/v1/later').slice(-2);
      expect(second!.at - first!.at).toBeGreaterThanOrEqual(1_000);
    }
  });

  it('gives up at once when Retry-After is beyond what the policy waits, and says how long the server asked for', async () => {
    server.on('GET', '/v1/x', [{ status: 503, body: { code: 'UNAVAILABLE', message: 'much later' }, headers: { 'retry-after': '120' } }]);
    const err = await transport()
      .call({ method: 'GET', path: '/v1/x', auth: true })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QimUnavailableError);
    expect(err).toMatchObject({ status: 503, retryAfterMs: 120_000 });
    expect(server.requests).toHaveLength(1);
  });

  it('a caller abort is a typed QimAbortedError (code ABORTED, the reason as cause), also while waiting to retry', async () => {
    server.on('GET', '/v1/wait', [{ status: 503, body: { code: 'UNAVAILABLE', message: 'x' }, headers: { 'retry-after': '5' } }]);
    const ac = new AbortController();
    const reason = new Error('stop');
    const pending = transport()
      .call({ method: 'GET', path: '/v1/wait', auth: true, signal: ac.signal })
      .catch((e: unknown) => e);
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    ac.abort(reason);
    const err = await pending;
    expect(err).toBeInstanceOf(QimAbortedError);
    expect(err).toMatchObject({ code: 'ABORTED', status: null, cause: reason });
    expect(server.requests).toHaveLength(1);
  });

  it("propagates the caller's abort without retrying", async () => {
    server.on('GET', '/v1/held', (_r, gone) => new Promise((resolve) => gone.addEventListener('abort', () => resolve({ status: 200, body: {} }))));
    const ac = new AbortController();
    // Abort once the server holds the request (not after a fixed delay: on a loaded machine the
    // request may not have arrived yet, and an abort before sending proves nothing here).
    const held = (async () => {
      while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
      ac.abort(new Error('stop'));
    })();
    await expect(transport().call({ method: 'GET', path: '/v1/held', auth: true, signal: ac.signal })).rejects.toMatchObject({
      code: 'ABORTED',
      cause: new Error('stop'),
    });
    await held;
    expect(server.requests).toHaveLength(1);
  });
});
