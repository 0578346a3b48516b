import { actingIdentity } from '@qim/service-kit';
import type { FastifyInstance } from 'fastify';
import type { MailboxAppOptions } from '../app-options';
import { entriesQuery, entryJsonOf, shardParams, truncateBody, userParams } from '../wire/mailbox-wire';

/** Device sync, truncate and the operators' shard status. */
export function registerMailboxRoutes(app: FastifyInstance, opts: MailboxAppOptions): void {
  const query = entriesQuery(opts.syncMaxLimit);

  app.get('/v1/mailboxes/:user/entries', async (request) => {
    const who = actingIdentity(request);
    const { user } = userParams.parse(request.params);
    const q = query.parse(request.query);
    const page = await opts.reader.sync(who.tenantId, who.userId, user, q.after ?? null, q.limit);
    return {
      entries: page.entries.map(entryJsonOf),
      next_after: page.nextAfter.toString(),
      has_more: page.hasMore,
      up_to: page.upTo.toString(),
    };
  });

  app.post('/v1/mailboxes/:user/truncate', async (request) => {
    const who = actingIdentity(request);
    const { user } = userParams.parse(request.params);
    const { before } = truncateBody.parse(request.body);
    await opts.reader.truncate(who.tenantId, who.userId, user, before);
    return { user, truncated_before: before.toString() };
  });

  app.get('/v1/shards/:shard/status', async (request) => {
    const { shard } = shardParams.parse(request.params);
    return opts.status.status(shard);
  });
}
