import fastify from 'fastify';
import type { FastifyInstance, RouteOptions } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { installErrorHandler } from './error-handler';
import { BEARER, DOCS_PREFIX, OPENAPI_PATH, errorResponses, installRouteSchemas, jsonResponse, undocumentedRoutes } from './openapi';
import { registerOpsRoutes } from './ops-routes';
import { ServiceMetrics } from '../metrics/service-metrics';

const hexId = z.string().regex(/^[0-9a-f]{32}$/, 'must be 32 lowercase hex characters');

/** A small app with the route-schema plumbing and one documented route; `routes` sees every route. */
async function probeApp(routes: RouteOptions[] = []): Promise<FastifyInstance> {
  const app = fastify({ logger: false });
  app.addHook('onRoute', (r) => void routes.push(r));
  await app.register(async (scope) => {
    installErrorHandler(scope);
    await installRouteSchemas(scope, { title: 'probe', version: '0.0.1' });
    registerOpsRoutes(scope, {
      readiness: [],
      tokens: ['openapi-test-token-0123456789'],
      metrics: new ServiceMetrics('probe', false),
      readinessSummary: 'always ready',
    });
    scope.withTypeProvider<ZodTypeProvider>().post(
      '/v1/things/:id',
      {
        schema: {
          summary: 'Store a thing',
          security: BEARER,
          params: z.object({ id: hexId }).strict(),
          querystring: z.object({ n: z.coerce.number().int().min(1).default(1) }).strict(),
          body: z.object({ name: z.string().min(1) }).strict(),
          response: { 200: jsonResponse('stored', z.object({ id: hexId, name: z.string(), n: z.number() })), ...errorResponses(['CONFLICT']) },
        },
      },
      // A name "leak" answers a field the answer schema does not allow to be anything but hex.
      async (request) => ({ id: request.body.name === 'leak' ? 'not-hex' : request.params.id, name: request.body.name, n: request.query.n }),
    );
  });
  await app.ready();
  return app;
}

const ID = 'a'.repeat(32);

describe('routes defined once (installRouteSchemas)', () => {
  let app: FastifyInstance;
  const routes: RouteOptions[] = [];
  beforeAll(async () => {
    app = await probeApp(routes);
  }, 30_000);
  afterAll(() => app.close());

  it('validates with the route schema and hands the handler the parsed values', async () => {
    const r = await app.inject({ method: 'POST', url: `/v1/things/${ID}?n=3`, payload: { name: 'x' } });
    expect([r.statusCode, r.json()]).toEqual([200, { id: ID, name: 'x', n: 3 }]);
  });

  it.each([
    ['a bad param', `/v1/things/XYZ`, { name: 'x' }, 'params.id: must be 32 lowercase hex characters'],
    ['a bad query', `/v1/things/${ID}?n=0`, { name: 'x' }, 'querystring.n:'],
    ['an unknown query field', `/v1/things/${ID}?m=1`, { name: 'x' }, 'querystring:'],
    ['a bad body', `/v1/things/${ID}`, { name: '' }, 'body.name:'],
    ['an unknown body field', `/v1/things/${ID}`, { name: 'x', extra: 1 }, 'body:'],
  ])('answers %s with 400 INVALID_INPUT in the error body, naming the part and path', async (_name, url, payload, message) => {
    const r = await app.inject({ method: 'POST', url, payload });
    expect(r.statusCode).toBe(400);
    expect(Object.keys(r.json()).sort()).toEqual(['code', 'message']);
    expect(r.json().code).toBe('INVALID_INPUT');
    expect(r.json().message).toContain(message);
  });

  it('refuses an answer its schema does not allow: 500 INTERNAL with the request id, nothing of the answer', async () => {
    const r = await app.inject({ method: 'POST', url: `/v1/things/${ID}`, payload: { name: 'leak' } });
    expect(r.statusCode).toBe(500);
    expect(Object.keys(r.json()).sort()).toEqual(['code', 'message', 'request_id']);
    expect(r.json().code).toBe('INTERNAL');
    expect(r.body).not.toContain('not-hex');
  });

  it('documents every status of a route from its codes, with the error body', async () => {
    const doc = (await app.inject({ url: OPENAPI_PATH })).json();
    const op = doc.paths['/v1/things/{id}'].post;
    expect(op.summary).toBe('Store a thing');
    expect(op.security).toEqual([{ bearer: [] }]);
    expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '401', '409', '500', '503']);
    expect(op.responses['409']).toEqual({ description: 'CONFLICT', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });
    expect(op.responses['503'].description).toBe('UNAVAILABLE');
    expect(doc.components.schemas.Error.properties.code.enum).toContain('FANOUT_LIMIT');
    expect(undocumentedRoutes(routes, doc)).toEqual([]);
  });

  it('serves the browsable docs at /docs', async () => {
    const r = await app.inject({ url: DOCS_PREFIX });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/html/);
  });

  it('groups codes of one status into one documented answer', () => {
    const out = errorResponses(['CONFLICT', 'INVALID_STATE', 'CORRUPT_ENTRY'], { authed: false });
    expect(Object.keys(out).sort()).toEqual(['409', '500', '503']);
    expect(out[409]!.description).toBe('CONFLICT | INVALID_STATE');
    expect(out[500]!.description).toBe('CORRUPT_ENTRY | INTERNAL');
  });
});

describe('a route without a schema', () => {
  it('is refused when it is registered', async () => {
    const app = fastify({ logger: false });
    void app.register(async (scope) => {
      await installRouteSchemas(scope, { title: 'probe', version: '0.0.1' });
      scope.get('/v1/bare', async () => ({ parsed: 'by hand' }));
    });
    await expect(app.ready()).rejects.toThrow(/GET \/v1\/bare has no schema with a summary and its responses/);
    await app.close();
  });

  it('is reported by undocumentedRoutes (no schema, or missing from the document)', () => {
    const doc = { paths: { '/v1/a/{id}': { get: { summary: 's', responses: { 200: { content: {} }, 500: { content: {} }, 503: { content: {} } } } } } };
    expect(undocumentedRoutes([{ method: 'GET', url: '/v1/a/:id', schema: {} }], doc)).toEqual([]);
    expect(undocumentedRoutes([{ method: 'GET', url: '/v1/b', schema: undefined }], doc)).toEqual(['GET /v1/b: no schema']);
    expect(undocumentedRoutes([{ method: 'POST', url: '/v1/a/:id', schema: {} }], doc)).toEqual(['POST /v1/a/:id: not in the OpenAPI document']);
    expect(undocumentedRoutes([{ method: 'GET', url: '/docs', schema: { hide: true } as object }], doc)).toEqual([]);
  });
});
