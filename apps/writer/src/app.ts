import { acceptJsonBodiesOnly, installErrorHandler, installRequestMetrics, installRouteSchemas, registerOpsRoutes, requireBearerToken } from '@qim/service-kit';
import type { FastifyInstance } from 'fastify';
import type { WriterAppOptions } from './app-options';
import { registerHistoryRoute } from './routes/history-route';
import { registerMembersRoute } from './routes/members-route';
import { registerSendBatchRoute } from './routes/send-batch-route';
import { registerSendRoute } from './routes/send-route';
import { registerSummariesRoute } from './routes/summaries-route';

export type { WriterAppOptions } from './app-options';

/**
 * The writer as a Fastify plugin: ops routes and docs (unauthenticated) and the `/v1` API behind
 * the bearer token. Each route is defined once, with its zod schemas: they validate the request,
 * check the answer and generate `/openapi.json` and `/docs`. One error handler maps every failure
 * to `{code, message}` (a 5xx carries only a client-safe message and the request id). Bodies are
 * JSON only (anything else is 415).
 */
export async function writerApp(app: FastifyInstance, opts: WriterAppOptions): Promise<void> {
  installErrorHandler(app);
  acceptJsonBodiesOnly(app);
  installRequestMetrics(app, opts.metrics);
  await installRouteSchemas(app, { title: 'QIM writer', version: '1.0.0' });
  registerOpsRoutes(app, {
    readiness: opts.readiness,
    tokens: opts.serviceTokens,
    metrics: opts.metrics,
    readinessSummary: 'Backend readiness, Kafka, writer lease (details in the body; 503 when not ready)',
  });
  await app.register(async (api) => {
    requireBearerToken(api, opts.serviceTokens);
    registerSendRoute(api, opts);
    registerSendBatchRoute(api, opts);
    registerHistoryRoute(api, opts);
    registerSummariesRoute(api, opts);
    registerMembersRoute(api, opts);
  });
}
