import { BEARER, errorResponses, jsonResponse } from '@qim/service-kit';
import { id128Text, tenantHeaders } from '@qim/wire';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { WriterAppOptions } from '../app-options';
import { conversationParams, membersBodySchema } from '../wire/query-schemas';

const memberCount = z.object({ conversation_id: id128Text, members: z.number().int().describe('members after the change') });
const memberList = z.object({ conversation_id: id128Text, members: z.array(id128Text) });

/**
 * `PUT` / `DELETE /v1/conversations/:id/members`: minimal membership admin for the acting tenant
 * (the real group service is outside this product). PUT adds (refused beyond QIM_MAX_FANOUT),
 * DELETE removes; both answer the member count. `GET` lists the members.
 */
export function registerMembersRoute(app: FastifyInstance, opts: WriterAppOptions): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const change = { security: BEARER, headers: tenantHeaders, params: conversationParams, body: membersBodySchema } as const;
  r.put(
    '/v1/conversations/:id/members',
    {
      schema: {
        summary: 'Add members (refused beyond QIM_MAX_FANOUT)',
        ...change,
        response: { 200: jsonResponse('the member count', memberCount), ...errorResponses(['FANOUT_LIMIT', 'UNSUPPORTED_MEDIA_TYPE']) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const count = await opts.membership.add(request.headers['x-qim-tenant'], id, request.body.members, opts.maxFanout);
      return { conversation_id: id, members: count };
    },
  );
  r.delete(
    '/v1/conversations/:id/members',
    {
      schema: {
        summary: 'Remove members',
        ...change,
        response: { 200: jsonResponse('the member count', memberCount), ...errorResponses(['UNSUPPORTED_MEDIA_TYPE']) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const count = await opts.membership.remove(request.headers['x-qim-tenant'], id, request.body.members);
      return { conversation_id: id, members: count };
    },
  );
  r.get(
    '/v1/conversations/:id/members',
    {
      schema: {
        summary: 'List members',
        security: BEARER,
        headers: tenantHeaders,
        params: conversationParams,
        response: { 200: jsonResponse('the members', memberList), ...errorResponses([]) },
      },
    },
    async (request) => {
      const { id } = request.params;
      return { conversation_id: id, members: await opts.membership.members(request.headers['x-qim-tenant'], id) };
    },
  );
}
