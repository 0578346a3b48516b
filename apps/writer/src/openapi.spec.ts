import { undocumentedRoutes } from '@qim/service-kit';
import type { RouteOptions } from 'fastify';
import { writerTestApp } from './testing/writer-test-app';
import type { WriterTestApp } from './testing/writer-test-app';

describe('writer: routes defined once, documented from their schemas', () => {
  const routes: RouteOptions[] = [];
  let t: WriterTestApp;
  beforeAll(async () => {
    t = await writerTestApp({ routes });
  }, 30_000);
  afterAll(() => t.app.close());

  it('serves the browsable docs at /docs without a token', async () => {
    const r = await t.app.inject({ url: '/docs' });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/html/);
    expect(r.body).toContain('swagger');
  });

  it('lists every route in /openapi.json (without a token) with a summary and each answer per status', async () => {
    const r = await t.app.inject({ url: '/openapi.json' });
    expect(r.statusCode).toBe(200);
    const doc = r.json();
    expect(doc.openapi).toBe('3.1.0');
    const documented = Object.entries(doc.paths as Record<string, object>).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(documented.sort()).toEqual(
      [
        'GET /healthz',
        'GET /readyz',
        'GET /metrics',
        'GET /openapi.json',
        'POST /v1/messages',
        'POST /v1/messages/batch',
        'GET /v1/conversations/{id}/messages',
        'POST /v1/summaries',
        'PUT /v1/conversations/{id}/members',
        'DELETE /v1/conversations/{id}/members',
        'GET /v1/conversations/{id}/members',
      ].sort(),
    );
    expect(undocumentedRoutes(routes, doc)).toEqual([]);
    const statuses = (path: string, method: string) => Object.keys(doc.paths[path][method].responses).sort();
    expect(statuses('/v1/messages', 'post')).toEqual(['200', '400', '401', '403', '409', '413', '415', '422', '500', '503']);
    expect(statuses('/v1/messages/batch', 'post')).toEqual(['200', '400', '401', '413', '415', '500', '503']);
    const batch = doc.paths['/v1/messages/batch'].post;
    expect(batch.responses['413'].description).toBe('BATCH_TOO_LARGE | PAYLOAD_TOO_LARGE');
    const items = batch.requestBody.content['application/json'].schema.properties.messages.items;
    expect(items.anyOf[0].properties.client_message_id).toBeDefined();
    expect(batch.responses['200'].content['application/json'].schema.properties.results.items.anyOf).toHaveLength(2);
    expect(statuses('/v1/conversations/{id}/members', 'get')).toEqual(['200', '400', '401', '500', '503']);
    const members = doc.paths['/v1/conversations/{id}/members'].get.responses['200'].content['application/json'].schema;
    expect(members.properties.members).toMatchObject({ type: 'array' });
    const summaries = doc.paths['/v1/summaries'].post.responses['200'].content['application/json'].schema;
    expect(summaries.properties.summaries.items.properties.last.anyOf).toContainEqual({ $ref: '#/components/schemas/MessageRecord' });
    expect(doc.components.schemas.MessageRecord.required).toEqual(expect.arrayContaining(['client_message_id', 'retention']));
  });
});
