import { BEARER, BatchTooLargeError, errorResponses, jsonResponse, mapError, typedOkSerializer } from '@qim/service-kit';
import type { SendRequest } from '@qim/store-core';
import { actingHeaders } from '@qim/wire';
import { sendBatch } from '@qim/writer-runtime';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { WriterAppOptions } from '../app-options';
import { sendAnswerOf } from '../wire/send-body';
import type { InvalidItem, SendBatchResult } from '../wire/send-batch-body';
import { sendBatchAnswerSchema, sendBatchBodySchema, sendBatchRequestsOf } from '../wire/send-batch-body';

/** The answer of each item's failure as a single send would have had it (a 5xx logged with its detail, as the error handler does). */
function failedItem(err: unknown, request: FastifyRequest): SendBatchResult {
  const mapped = mapError(err, request.id);
  if (mapped.serverFault) request.log.error({ err, code: mapped.body.code, requestId: request.id }, 'batch item failed');
  return { status: mapped.status, body: mapped.body };
}

/**
 * `POST /v1/messages/batch`: up to `QIM_SEND_BATCH_MAX` sends as the acting user, each through the
 * single-send path (its own admission wait, deadline, idempotency and errors), all at once.
 * 200 with one result per item in request order (partial success is normal); the batch as a whole
 * is refused (nothing sent) only when it is too large, malformed or over its body limit.
 */
export function registerSendBatchRoute(app: FastifyInstance, opts: WriterAppOptions): void {
  const { maxItems, bodyLimit } = opts.sendBatch;
  app.withTypeProvider<ZodTypeProvider>().post(
    '/v1/messages/batch',
    {
      bodyLimit,
      schema: {
        summary:
          `Send several messages as the acting user, each answered on its own as POST /v1/messages would answer it ` +
          `(at most QIM_SEND_BATCH_MAX sends, ${maxItems} here)`,
        security: BEARER,
        headers: actingHeaders,
        body: sendBatchBodySchema(maxItems),
        response: {
          200: jsonResponse('one result per item, in request order: the status and body of a single send of it', sendBatchAnswerSchema),
          ...errorResponses(['BATCH_TOO_LARGE', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE']),
        },
      },
      serializerCompiler: typedOkSerializer,
    },
    async (request) => {
      const items = request.body.messages;
      if (items.length > maxItems) throw new BatchTooLargeError(`a batch of ${items.length} sends; at most ${maxItems} (QIM_SEND_BATCH_MAX)`);
      const parsed = sendBatchRequestsOf(items, request.headers['x-qim-tenant'], request.headers['x-qim-user']);
      const valid = parsed.filter((p): p is SendRequest => !('invalid' in p));
      const sent = await sendBatch(opts.sender, valid);
      let next = 0;
      const results = parsed.map((p: SendRequest | InvalidItem): SendBatchResult => {
        if ('invalid' in p) return { status: 400, body: p.invalid };
        const r = sent[next++]!;
        return r.ok ? { status: 200, body: sendAnswerOf(r.outcome) } : failedItem(r.error, request);
      });
      return { results };
    },
  );
}
