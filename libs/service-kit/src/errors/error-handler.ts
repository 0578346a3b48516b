import type { FastifyInstance } from 'fastify';
import { RouteNotFoundError } from './service-errors';
import { mapError } from './error-body';

/**
 * Installs THE error handler of an app (and its not-found handler): every failure leaves as
 * `{code, message}` with the status from `ERROR_STATUS`. A store error never becomes a 200.
 */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err, request, reply) => {
    const mapped = mapError(err);
    if (mapped.serverFault) request.log.error({ err, code: mapped.body.code }, 'request failed');
    else request.log.info({ code: mapped.body.code, reason: mapped.body.message }, 'request refused');
    return reply.status(mapped.status).send(mapped.body);
  });
  app.setNotFoundHandler((request) => {
    throw new RouteNotFoundError(`no route ${request.method} ${request.url.split('?')[0]}`);
  });
}
