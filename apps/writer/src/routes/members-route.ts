import { actingTenant } from '@qim/service-kit';
import type { FastifyInstance } from 'fastify';
import type { WriterAppOptions } from '../app-options';
import { conversationParams, membersBodySchema } from '../wire/query-schemas';

/**
 * `PUT` / `DELETE /v1/conversations/:id/members`: minimal membership admin for the acting tenant
 * (the real group service is outside this product). PUT adds (refused beyond QIM_MAX_FANOUT),
 * DELETE removes; both answer the member count.
 */
export function registerMembersRoute(app: FastifyInstance, opts: WriterAppOptions): void {
  app.put('/v1/conversations/:id/members', async (request) => {
    const tenantId = actingTenant(request);
    const { id } = conversationParams.parse(request.params);
    const { members } = membersBodySchema.parse(request.body);
    const count = await opts.membership.add(tenantId, id, members, opts.maxFanout);
    return { conversation_id: id, members: count };
  });
  app.delete('/v1/conversations/:id/members', async (request) => {
    const tenantId = actingTenant(request);
    const { id } = conversationParams.parse(request.params);
    const { members } = membersBodySchema.parse(request.body);
    const count = await opts.membership.remove(tenantId, id, members);
    return { conversation_id: id, members: count };
  });
  app.get('/v1/conversations/:id/members', async (request) => {
    const tenantId = actingTenant(request);
    const { id } = conversationParams.parse(request.params);
    return { conversation_id: id, members: await opts.membership.members(tenantId, id) };
  });
}
