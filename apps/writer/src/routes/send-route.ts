import { actingIdentity } from '@qim/service-kit';
import type { FastifyInstance } from 'fastify';
import type { WriterAppOptions } from '../app-options';
import { sendAnswerOf, sendBodySchema, sendRequestOf } from '../wire/send-body';

/** `POST /v1/messages`: send as the acting user. 200 on first commit and on replay. */
export function registerSendRoute(app: FastifyInstance, opts: WriterAppOptions): void {
  app.post('/v1/messages', async (request) => {
    const who = actingIdentity(request);
    const body = sendBodySchema.parse(request.body);
    const outcome = await opts.sender.send(sendRequestOf(body, who.tenantId, who.userId));
    return sendAnswerOf(outcome);
  });
}
