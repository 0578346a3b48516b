import { ForbiddenError } from '@qim/store-core';
import { BEARER, errorResponses, jsonResponse } from '@qim/service-kit';
import { actingHeaders, id128Text, messageRecordJson, messageRecordJsonSchema, u64Text } from '@qim/wire';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { WriterAppOptions } from '../app-options';
import { summariesBodySchema } from '../wire/query-schemas';

const summariesAnswer = z.object({
  summaries: z.array(
    z.object({
      conversation_id: id128Text,
      head_seq: u64Text,
      last: messageRecordJsonSchema.nullable().describe('the newest message; null in an empty conversation'),
      unread: z.number().int().describe('messages after read_seq that count as unread'),
      precise: z.boolean().describe('false when unread was bounded rather than counted exactly'),
    }),
  ),
});

/** `POST /v1/summaries`: head seq, last message and unread count per conversation of the acting user. */
export function registerSummariesRoute(app: FastifyInstance, opts: WriterAppOptions): void {
  app.withTypeProvider<ZodTypeProvider>().post(
    '/v1/summaries',
    {
      schema: {
        summary: 'Head seq, last message and unread count per conversation of the acting user',
        security: BEARER,
        headers: actingHeaders,
        body: summariesBodySchema,
        response: {
          200: jsonResponse('one summary per asked conversation', summariesAnswer),
          ...errorResponses(['FORBIDDEN', 'CORRUPT_ENTRY', 'UNSUPPORTED_MEDIA_TYPE']),
        },
      },
    },
    async (request) => {
      const who = { tenantId: request.headers['x-qim-tenant'], userId: request.headers['x-qim-user'] };
      const body = request.body;
      // Every membership check at once: one Redis round trip (the connection pipelines one tick's
      // commands), not one per conversation; nothing is read unless all of them pass.
      const allowed = await Promise.all(body.conversations.map((c) => opts.authorizer.canReadHistory(who, c.conversation_id)));
      const refused = body.conversations.find((_, i) => !allowed[i]);
      if (refused !== undefined) throw new ForbiddenError(`not a member of conversation ${refused.conversation_id}`);
      const summaries = await opts.store.conversationSummaries(
        who,
        body.conversations.map((c) => ({ conversationId: c.conversation_id, readSeq: c.read_seq ?? 0n })),
      );
      return {
        summaries: summaries.map((s) => ({
          conversation_id: s.conversationId,
          head_seq: s.headSeq.toString(),
          last: s.last === null ? null : messageRecordJson(s.last),
          unread: s.unread,
          precise: s.precise,
        })),
      };
    },
  );
}
