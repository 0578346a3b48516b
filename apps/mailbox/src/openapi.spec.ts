import { undocumentedRoutes } from '@qim/service-kit';
import type { RouteOptions } from 'fastify';
import { mailboxTestApp } from './testing/mailbox-test-app';
import type { MailboxTestApp } from './testing/mailbox-test-app';

describe('mailbox: routes defined once, documented from their schemas', () => {
  const routes: RouteOptions[] = [];
  let t: MailboxTestApp;
  beforeAll(async () => {
    t = await mailboxTestApp({ routes });
  }, 30_000);
  afterAll(() => t.app.close());

  it('serves the browsable docs at /docs without a token', async () => {
    const r = await t.app.inject({ url: '/docs' });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/html/);
  });

  it('lists every route in /openapi.json (without a token) with a summary and each answer per status', async () => {
    const doc = (await t.app.inject({ url: '/openapi.json' })).json();
    const documented = Object.entries(doc.paths as Record<string, object>).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(documented.sort()).toEqual(
      [
        'GET /healthz',
        'GET /readyz',
        'GET /metrics',
        'GET /openapi.json',
        'GET /v1/mailboxes/{user}/entries',
        'GET /v1/mailboxes/{user}/stream',
        'POST /v1/mailboxes/{user}/truncate',
        'GET /v1/shards/{shard}/status',
      ].sort(),
    );
    expect(undocumentedRoutes(routes, doc)).toEqual([]);
    const sync = doc.paths['/v1/mailboxes/{user}/entries'].get;
    expect(Object.keys(sync.responses).sort()).toEqual(['200', '400', '401', '403', '410', '500', '503']);
    expect(sync.responses['410'].description).toBe('CURSOR_EXPIRED | EPOCH_MISMATCH');
    expect(sync.parameters.map((p: { in: string; name: string }) => `${p.in}:${p.name}`)).toEqual(
      expect.arrayContaining(['query:after', 'query:wait_ms', 'path:user', 'header:x-qim-tenant', 'header:x-qim-user']),
    );
    const stream = doc.paths['/v1/mailboxes/{user}/stream'].get;
    expect(Object.keys(stream.responses['200'].content)).toEqual(['text/event-stream']);
    expect(Object.keys(stream.responses).sort()).toEqual(['200', '400', '401', '403', '410', '500', '503']);
    expect(stream.parameters.map((p: { in: string; name: string }) => `${p.in}:${p.name}`)).not.toContain('query:wait_ms');
    // The same record JSON as the writer's (one shared wire module).
    expect(doc.components.schemas.MessageRecord.required).toEqual(expect.arrayContaining(['client_message_id', 'retention']));
  });
});
