import { installErrorHandler, installRequestMetrics, installRouteSchemas, registerOpsRoutes, requireBearerToken } from '@qim/service-kit';
import type { FastifyInstance } from 'fastify';
import type { MailboxAppOptions } from './app-options';
import { registerMailboxRoutes } from './routes/mailbox-routes';
import { registerStreamRoute } from './routes/stream-route';

export type { MailboxAppOptions } from './app-options';

/**
 * The mailbox service as a Fastify plugin: ops routes and docs (unauthenticated) and the `/v1` API
 * behind the bearer token. Each route is defined once, with its zod schemas: they validate the
 * request, check the answer and generate `/openapi.json` and `/docs`.
 */
export async function mailboxApp(app: FastifyInstance, opts: MailboxAppOptions): Promise<void> {
  installErrorHandler(app);
  installRequestMetrics(app, opts.metrics);
  await installRouteSchemas(app, { title: 'QIM mailbox', version: '1.0.0' });
  registerOpsRoutes(app, {
    readiness: opts.readiness,
    tokens: opts.serviceTokens,
    metrics: opts.metrics,
    readinessSummary:
      'Backend readiness, Kafka, consumers (503 when not ready); ' +
      'each assigned shard in the detail (a refused or stalled shard does not make the process unready)',
  });
  // Closing: long-polling syncs answer at once instead of holding the drain for their whole wait.
  app.addHook('preClose', async () => opts.reader.board.close());
  await app.register(async (api) => {
    requireBearerToken(api, opts.serviceTokens);
    registerMailboxRoutes(api, opts);
    registerStreamRoute(api, opts);
  });
}
