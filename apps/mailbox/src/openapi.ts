import type { RouteDoc } from '@qim/service-kit';
import { buildOpenApi } from '@qim/service-kit';
import { z } from 'zod';
import { entriesQuery, shardParams, syncAnswer, truncateBody, userParams } from './wire/mailbox-wire';

/** The mailbox's OpenAPI document, built from the handlers' own zod schemas. */
export function mailboxOpenApi(syncMaxLimit: number, syncMaxWaitMs: number): object {
  const routes: RouteDoc[] = [
    {
      method: 'get',
      path: '/v1/mailboxes/{user}/entries',
      summary:
        "Sync the acting user's own mailbox after a cursor, up to the shard frontier; with wait_ms, long-poll until entries arrive (410 CURSOR_EXPIRED / EPOCH_MISMATCH → resync)",
      auth: true,
      actingUser: true,
      params: userParams,
      query: entriesQuery(syncMaxLimit, syncMaxWaitMs),
      response: syncAnswer,
      errors: ['INVALID_INPUT', 'FORBIDDEN', 'CURSOR_EXPIRED', 'EPOCH_MISMATCH', 'CORRUPT_ENTRY', 'UNAVAILABLE'],
    },
    {
      method: 'post',
      path: '/v1/mailboxes/{user}/truncate',
      summary: "Raise the acting user's trim",
      auth: true,
      actingUser: true,
      params: userParams,
      body: truncateBody,
      response: z.object({ user: z.string(), truncated_before: z.string() }),
      errors: ['FORBIDDEN', 'EPOCH_MISMATCH'],
    },
    { method: 'get', path: '/v1/shards/{shard}/status', summary: 'Shard frontier, committed and end offsets (lag), stall and retry state of a shard', auth: true, params: shardParams },
    { method: 'get', path: '/healthz', summary: 'The process answers', auth: false },
    { method: 'get', path: '/readyz', summary: 'Backend readiness, Kafka, consumers, frontier of each assigned shard (503 when not ready)', auth: false },
    { method: 'get', path: '/metrics', summary: 'Prometheus metrics', auth: false },
  ];
  return buildOpenApi('QIM mailbox', '1.0.0', routes);
}
