import { ForbiddenError } from '@qim/store-core';
import { actingIdentity } from '@qim/service-kit';
import type { FastifyInstance } from 'fastify';
import type { WriterAppOptions } from '../app-options';
import { summariesBodySchema } from '../wire/query-schemas';
import { recordJson } from '../wire/record-json';

/** `POST /v1/summaries`: head seq, last message and unread count per conversation of the acting user. */
export function registerSummariesRoute(app: FastifyInstance, opts: WriterAppOptions): void {
  app.post('/v1/summaries', async (request) => {
    const who = actingIdentity(request);
    const body = summariesBodySchema.parse(request.body);
    for (const c of body.conversations) {
      if (!(await opts.authorizer.canReadHistory(who, c.conversation_id))) {
        throw new ForbiddenError(`not a member of conversation ${c.conversation_id}`);
      }
    }
    const summaries = await opts.store.conversationSummaries(
      who,
      body.conversations.map((c) => ({ conversationId: c.conversation_id, readSeq: c.read_seq ?? 0n })),
    );
    return {
      summaries: summaries.map((s) => ({
        conversation_id: s.conversationId,
        head_seq: s.headSeq.toString(),
        last: s.last === null ? null : recordJson(s.last),
        unread: s.unread,
        precise: s.precise,
      })),
    };
  });
}
