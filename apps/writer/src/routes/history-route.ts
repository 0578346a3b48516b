import { actingIdentity } from '@qim/service-kit';
import type { FastifyInstance } from 'fastify';
import type { WriterAppOptions } from '../app-options';
import { conversationParams, historyQuerySchema } from '../wire/query-schemas';
import { recordJson } from '../wire/record-json';

/** `GET /v1/conversations/:id/messages`: a directional history page for a member. */
export function registerHistoryRoute(app: FastifyInstance, opts: WriterAppOptions): void {
  app.get('/v1/conversations/:id/messages', async (request) => {
    const who = actingIdentity(request);
    const { id } = conversationParams.parse(request.params);
    const q = historyQuerySchema.parse(request.query);
    const page = await opts.store.historyPage(opts.authorizer, who, id, {
      direction: q.direction,
      anchor: q.anchor ?? null,
      maxItems: q.max_items,
      maxBytes: q.max_bytes,
    });
    return {
      conversation_id: id,
      direction: q.direction,
      items: page.items.map((i) => recordJson(i.record)),
      has_more: page.hasMore,
      next_anchor: page.nextAnchor === null ? null : page.nextAnchor.toString(),
    };
  });
}
