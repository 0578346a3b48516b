import type { FastifyInstance } from 'fastify';
import { refuseWhileClosing } from './closing-guard';
import { RouteNotFoundError } from '../errors/service-errors';
import { mapError } from '../errors/error-body';
import { isRetryLaterStatus, retryAfterSecondsOf } from './retry-after';

/**
 * Installs THE error handler of an app (and its not-found handler and closing guard): every
 * failure leaves as `{code, message}` with the status from `ERROR_STATUS`. A store error never
 * becomes a 200. A 5xx is logged with its full detail (driver text, cause chain) under the
 * request id, and its body carries only the code, a message written for clients and that id.
 * Every 503 and 429 carries `Retry-After` (the error's `retryAfterSeconds`, else 1 s).
 */
export function installErrorHandler(app: FastifyInstance): void {
  refuseWhileClosing(app);
  app.setErrorHandler((err, request, reply) => {
    const mapped = mapError(err, request.id);
    if (mapped.serverFault) request.log.error({ err, code: mapped.body.code, requestId: request.id }, 'request failed');
    else request.log.info({ code: mapped.body.code, reason: mapped.body.message }, 'request refused');
    if (isRetryLaterStatus(mapped.status)) void reply.header('retry-after', String(retryAfterSecondsOf(err)));
    return reply.status(mapped.status).send(mapped.body);
  });
  app.setNotFoundHandler((request) => {
    throw new RouteNotFoundError(`no route ${request.method} ${request.url.split('?')[0]}`);
  });
}
