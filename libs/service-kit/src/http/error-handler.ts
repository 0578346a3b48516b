import type { FastifyInstance } from 'fastify';
import { refuseWhileClosing } from './closing-guard';
import { RouteNotFoundError } from '../errors/service-errors';
import { mapError } from '../errors/error-body';
import { ReadBudgetSpentError } from '../limits/read-budget';

/**
 * Installs THE error handler of an app (and its not-found handler and closing guard): every
 * failure leaves as `{code, message}` with the status from `ERROR_STATUS`. A store error never
 * becomes a 200. A 5xx is logged with its full detail (driver text, cause chain) under the
 * request id, and its body carries only the code, a message written for clients and that id.
 */
export function installErrorHandler(app: FastifyInstance): void {
  refuseWhileClosing(app);
  app.setErrorHandler((err, request, reply) => {
    const mapped = mapError(err, request.id);
    if (mapped.serverFault) request.log.error({ err, code: mapped.body.code, requestId: request.id }, 'request failed');
    else request.log.info({ code: mapped.body.code, reason: mapped.body.message }, 'request refused');
    if (err instanceof ReadBudgetSpentError) void reply.header('retry-after', String(err.retryAfterSeconds));
    return reply.status(mapped.status).send(mapped.body);
  });
  app.setNotFoundHandler((request) => {
    throw new RouteNotFoundError(`no route ${request.method} ${request.url.split('?')[0]}`);
  });
}
