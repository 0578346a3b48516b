import { BEARER, errorResponses, jsonResponse, typedOkSerializer } from '@qim/service-kit';
import { actingHeaders } from '@qim/wire';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { WriterAppOptions } from '../app-options';
import { sendAnswerOf, sendAnswerSchema, sendBodySchema, sendRequestOf } from '../wire/send-body';

/** `POST /v1/messages`: send as the acting user. 200 on first commit and on replay. */
export function registerSendRoute(app: FastifyInstance, opts: WriterAppOptions): void {
  app.withTypeProvider<ZodTypeProvider>().post(
    '/v1/messages',
    {
      schema: {
        summary: 'Send a message as the acting user (idempotent per client_message_id; 503 past QIM_SEND_DEADLINE_MS, retry with the same id)',
        security: BEARER,
        headers: actingHeaders,
        body: sendBodySchema,
        response: {
          200: jsonResponse('committed (or the replay of an earlier commit of this client_message_id)', sendAnswerSchema),
          ...errorResponses(['FORBIDDEN', 'CONFLICT', 'FANOUT_LIMIT', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE']),
        },
      },
      // Every send: its answer is built by sendAnswerOf (typed), not re-checked per request.
      serializerCompiler: typedOkSerializer,
    },
    async (request) => {
      const outcome = await opts.sender.send(sendRequestOf(request.body, request.headers['x-qim-tenant'], request.headers['x-qim-user']));
      return sendAnswerOf(outcome);
    },
  );
}
