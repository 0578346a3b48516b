import { UnavailableError } from '@qim/store-core';
import type { FastifyInstance } from 'fastify';
import type { PublicFailure } from '../errors/error-body';

/** A request reached a server that is shutting down. */
export class ServerClosingError extends UnavailableError implements PublicFailure {
  readonly publicMessage = 'the server is shutting down; retry on another instance';
}

/**
 * Refuses requests that arrive while the server closes (keep-alive or pipelined connections) with
 * `503 UNAVAILABLE` in the ordinary error body, instead of Fastify's own closing answer (turn that
 * off with `return503OnClosing: false`, as `serviceServerOptions` does). In-flight requests finish.
 */
export function refuseWhileClosing(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (!closing) return;
    void reply.header('connection', 'close');
    throw new ServerClosingError('request refused: the server is closing');
  });
}
