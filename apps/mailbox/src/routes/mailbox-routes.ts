import { actingIdentity } from '@qim/service-kit';
import type { FastifyInstance } from 'fastify';
import type { MailboxAppOptions } from '../app-options';
import { entriesQuery, entryJsonOf, shardParams, truncateBody, userParams } from '../wire/mailbox-wire';

/** Device sync (long-poll with `wait_ms`), truncate and the operators' shard status. */
export function registerMailboxRoutes(app: FastifyInstance, opts: MailboxAppOptions): void {
  const query = entriesQuery(opts.syncMaxLimit, opts.syncMaxWaitMs);

  app.get('/v1/mailboxes/:user/entries', async (request, reply) => {
    const who = actingIdentity(request);
    const { user } = userParams.parse(request.params);
    const q = query.parse(request.query);
    // A client that goes away ends its wait: the response is closed before it was finished.
    const gone = new AbortController();
    const onClose = (): void => {
      if (!reply.raw.writableFinished) gone.abort();
    };
    reply.raw.once('close', onClose);
    try {
      const page = await opts.reader.sync({
        tenantId: who.tenantId,
        actingUser: who.userId,
        userId: user,
        after: q.after ?? null,
        limit: q.limit,
        maxBytes: q.max_bytes,
        waitMs: q.wait_ms,
        signal: gone.signal,
      });
      return {
        entries: page.entries.map(entryJsonOf),
        next_after: page.nextAfter.toString(),
        has_more: page.hasMore,
        up_to: page.upTo.toString(),
      };
    } finally {
      reply.raw.off('close', onClose);
    }
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
