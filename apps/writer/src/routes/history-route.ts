import { BEARER, errorResponses, jsonResponse } from '@qim/service-kit';
import { actingHeaders, id128Text, messageRecordJson, messageRecordJsonSchema, u64Text } from '@qim/wire';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { WriterAppOptions } from '../app-options';
import { conversationParams, historyQuerySchema } from '../wire/query-schemas';

const historyAnswer = z.object({
  conversation_id: id128Text,
  direction: z.enum(['older', 'newer']),
  items: z.array(messageRecordJsonSchema),
  has_more: z.boolean(),
  next_anchor: u64Text.nullable().describe('the anchor of the next page in the same direction; null at the end'),
});

/** `GET /v1/conversations/:id/messages`: a directional history page for a member. */
export function registerHistoryRoute(app: FastifyInstance, opts: WriterAppOptions): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/v1/conversations/:id/messages',
    {
      schema: {
        summary: 'A directional history page of a conversation the acting user is a member of',
        security: BEARER,
        headers: actingHeaders,
        params: conversationParams,
        querystring: historyQuerySchema,
        response: { 200: jsonResponse('a page of messages', historyAnswer), ...errorResponses(['FORBIDDEN', 'CORRUPT_ENTRY']) },
      },
    },
    async (request) => {
      const who = { tenantId: request.headers['x-qim-tenant'], userId: request.headers['x-qim-user'] };
      const { id } = request.params;
      const q = request.query;
      const page = await opts.readBudget.run(q.max_bytes, (granted) =>
        opts.store.historyPage(opts.authorizer, who, id, {
          direction: q.direction,
          anchor: q.anchor ?? null,
          maxItems: q.max_items,
          maxBytes: granted,
        }),
      );
      return {
        conversation_id: id,
        direction: q.direction,
        items: page.items.map((i) => messageRecordJson(i.record)),
        has_more: page.hasMore,
        next_anchor: page.nextAnchor === null ? null : page.nextAnchor.toString(),
      };
    },
  );
}
