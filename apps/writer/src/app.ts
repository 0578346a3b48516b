import { acceptJsonBodiesOnly, installErrorHandler, installRequestMetrics, registerOpsRoutes, requireBearerToken } from '@qim/service-kit';
import type { FastifyInstance } from 'fastify';
import type { WriterAppOptions } from './app-options';
import { writerOpenApi } from './openapi';
import { registerHistoryRoute } from './routes/history-route';
import { registerMembersRoute } from './routes/members-route';
import { registerSendRoute } from './routes/send-route';
import { registerSummariesRoute } from './routes/summaries-route';

export type { WriterAppOptions } from './app-options';

/**
 * The writer as a Fastify plugin: ops routes (unauthenticated) and the `/v1` API behind the
 * bearer token. One error handler maps every failure to `{code, message}` (a 5xx carries only a
 * client-safe message and the request id). Bodies are JSON only (anything else is 415).
 */
export async function writerApp(app: FastifyInstance, opts: WriterAppOptions): Promise<void> {
  installErrorHandler(app);
  acceptJsonBodiesOnly(app);
  installRequestMetrics(app, opts.metrics);
  registerOpsRoutes(app, { readiness: opts.readiness, metrics: opts.metrics, openapi: writerOpenApi });
  await app.register(async (api) => {
    requireBearerToken(api, opts.serviceToken);
    registerSendRoute(api, opts);
    registerHistoryRoute(api, opts);
    registerSummariesRoute(api, opts);
    registerMembersRoute(api, opts);
  });
}
