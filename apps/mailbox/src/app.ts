import { installErrorHandler, installRequestMetrics, registerOpsRoutes, requireBearerToken } from '@qim/service-kit';
import type { FastifyInstance } from 'fastify';
import type { MailboxAppOptions } from './app-options';
import { mailboxOpenApi } from './openapi';
import { registerMailboxRoutes } from './routes/mailbox-routes';

export type { MailboxAppOptions } from './app-options';

/** The mailbox service as a Fastify plugin: ops routes and the `/v1` API behind the bearer token. */
export async function mailboxApp(app: FastifyInstance, opts: MailboxAppOptions): Promise<void> {
  installErrorHandler(app);
  installRequestMetrics(app, opts.metrics);
  registerOpsRoutes(app, { readiness: opts.readiness, metrics: opts.metrics, openapi: mailboxOpenApi(opts.syncMaxLimit, opts.syncMaxWaitMs) });
  // Closing: long-polling syncs answer at once instead of holding the drain for their whole wait.
  app.addHook('preClose', async () => opts.reader.board.close());
  await app.register(async (api) => {
    requireBearerToken(api, opts.serviceToken);
    registerMailboxRoutes(api, opts);
  });
}
