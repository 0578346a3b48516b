import type { RouteDoc } from '@qim/service-kit';
import { buildOpenApi } from '@qim/service-kit';
import { z } from 'zod';
import { conversationParams, historyQuerySchema, membersBodySchema, summariesBodySchema } from './wire/query-schemas';
import { recordJsonSchema } from './wire/record-json';
import { sendAnswerSchema, sendBodySchema } from './wire/send-body';

const membersAnswer = z.object({ conversation_id: z.string(), members: z.number() });

const routes: RouteDoc[] = [
  {
    method: 'post',
    path: '/v1/messages',
    summary: 'Send a message as the acting user (idempotent per client_message_id; 503 past QIM_SEND_DEADLINE_MS, retry with the same id)',
    auth: true,
    actingUser: true,
    body: sendBodySchema,
    response: sendAnswerSchema,
    errors: ['FORBIDDEN', 'CONFLICT', 'FANOUT_LIMIT', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'],
  },
  {
    method: 'get',
    path: '/v1/conversations/{id}/messages',
    summary: 'A directional history page',
    auth: true,
    actingUser: true,
    params: conversationParams,
    query: historyQuerySchema,
    response: z.object({
      conversation_id: z.string(),
      direction: z.string(),
      items: z.array(recordJsonSchema),
      has_more: z.boolean(),
      next_anchor: z.string().nullable(),
    }),
    errors: ['FORBIDDEN', 'CORRUPT_ENTRY'],
  },
  {
    method: 'post',
    path: '/v1/summaries',
    summary: 'Head seq, last message and unread count per conversation',
    auth: true,
    actingUser: true,
    body: summariesBodySchema,
    errors: ['FORBIDDEN', 'UNSUPPORTED_MEDIA_TYPE'],
  },
  { method: 'put', path: '/v1/conversations/{id}/members', summary: 'Add members', auth: true, params: conversationParams, body: membersBodySchema, response: membersAnswer, errors: ['FANOUT_LIMIT'] },
  { method: 'delete', path: '/v1/conversations/{id}/members', summary: 'Remove members', auth: true, params: conversationParams, body: membersBodySchema, response: membersAnswer },
  { method: 'get', path: '/v1/conversations/{id}/members', summary: 'List members', auth: true, params: conversationParams },
  { method: 'get', path: '/healthz', summary: 'The process answers', auth: false },
  { method: 'get', path: '/readyz', summary: 'Backend readiness, Kafka, writer lease (details in the body; 503 when not ready)', auth: false },
  { method: 'get', path: '/metrics', summary: 'Prometheus metrics', auth: false },
];

/** The writer's OpenAPI document, built from the handlers' own zod schemas. */
export const writerOpenApi = buildOpenApi('QIM writer', '1.0.0', routes);
