import { BEARER, errorResponses, jsonResponse, typedOkSerializer } from '@qim/service-kit';
import { actingHeaders } from '@qim/wire';
import type { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { MailboxAppOptions } from '../app-options';
import { entriesQuery, shardParams, shardStatusAnswer, syncAnswer, syncAnswerOf, truncateAnswer, truncateBody, userParams } from '../wire/mailbox-wire';

/** Device sync (long-poll with `wait_ms`), truncate and the operators' shard status. */
export function registerMailboxRoutes(app: FastifyInstance, opts: MailboxAppOptions): void {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    '/v1/mailboxes/:user/entries',
    {
      schema: {
        summary:
          "Sync the acting user's own mailbox after a cursor, up to the shard frontier; with wait_ms, long-poll until entries arrive; " +
          "a repeat of an answer's cursor within QIM_SYNC_REPEAT_HOLD_MS of it waits out the hold unless entries arrive " +
          '(410 CURSOR_EXPIRED / EPOCH_MISMATCH → resync)',
        security: BEARER,
        headers: actingHeaders,
        params: userParams,
        querystring: entriesQuery(opts.syncMaxLimit, opts.syncMaxWaitMs),
        response: {
          200: jsonResponse('a page of entries (empty when a long-poll saw none)', syncAnswer),
          ...errorResponses(['FORBIDDEN', 'CURSOR_EXPIRED', 'EPOCH_MISMATCH', 'CORRUPT_ENTRY', 'FRONTIER_GAP']),
        },
      },
      // The hottest route: its page is built by entryJsonOf (typed), not re-checked per request.
      serializerCompiler: typedOkSerializer,
    },
    async (request, reply) => {
      const q = request.query;
      // A client that goes away ends its wait: the response is closed before it was finished.
      const gone = new AbortController();
      const onClose = (): void => {
        if (!reply.raw.writableFinished) gone.abort();
      };
      reply.raw.once('close', onClose);
      try {
        const page = await opts.reader.sync({
          tenantId: request.headers['x-qim-tenant'],
          actingUser: request.headers['x-qim-user'],
          userId: request.params.user,
          after: q.after ?? null,
          limit: q.limit,
          maxBytes: q.max_bytes,
          waitMs: q.wait_ms,
          signal: gone.signal,
        });
        return syncAnswerOf(page);
      } finally {
        reply.raw.off('close', onClose);
      }
    },
  );

  r.post(
    '/v1/mailboxes/:user/truncate',
    {
      schema: {
        summary: "Raise the acting user's trim: entries below `before` are dropped",
        security: BEARER,
        headers: actingHeaders,
        params: userParams,
        body: truncateBody,
        response: { 200: jsonResponse('the new trim', truncateAnswer), ...errorResponses(['FORBIDDEN', 'EPOCH_MISMATCH', 'UNSUPPORTED_MEDIA_TYPE']) },
      },
    },
    async (request) => {
      const { user } = request.params;
      const { before } = request.body;
      await opts.reader.truncate(request.headers['x-qim-tenant'], request.headers['x-qim-user'], user, before);
      return { user, truncated_before: before.toString() };
    },
  );

  r.get(
    '/v1/shards/:shard/status',
    {
      schema: {
        summary: 'Shard frontier, committed and end offsets (lag), stall and retry state of a shard',
        security: BEARER,
        params: shardParams,
        response: { 200: jsonResponse('the shard status', shardStatusAnswer), ...errorResponses([]) },
      },
    },
    async (request) => (await opts.status.status(request.params.shard)) as z.output<typeof shardStatusAnswer>,
  );
}
