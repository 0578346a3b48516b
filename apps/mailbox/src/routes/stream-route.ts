import type { SyncPage } from '@qim/mailbox-runtime';
import type { ServiceMetrics } from '@qim/service-kit';
import { BEARER, errorResponses, mapError } from '@qim/service-kit';
import { InvalidInputError } from '@qim/store-core';
import { Counter, Gauge } from 'prom-client';
import { actingHeaders } from '@qim/wire';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import type { MailboxAppOptions } from '../app-options';
import { streamQuery, syncAnswerOf, userParams } from '../wire/mailbox-wire';

/** The page of a stream event, exactly the body a `GET …/entries` would answer. */
function pageEvent(page: SyncPage): string {
  return `event: page\ndata: ${JSON.stringify(syncAnswerOf(page))}\n\n`;
}

/** Resolves when the response can take more (`drain`), or false when it closed or `ms` passed first. */
export function drained(res: ServerResponse, ms: number): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(ok);
    };
    const onDrain = (): void => done(true);
    const onClose = (): void => done(false);
    const timer = setTimeout(() => done(false), ms);
    res.once('drain', onDrain);
    res.once('close', onClose);
  });
}

/** Why a stream ended (`qim_sync_streams_ended_total{reason}`). */
type EndReason = 'life' | 'closing' | 'gone' | 'slow' | 'error';

/** The streams' own metrics, on the service's registry (request metrics do not see a hijacked response). */
class StreamMetrics {
  readonly open: Gauge;
  readonly pages: Counter;
  readonly ended: Counter<'reason'>;
  constructor(metrics: ServiceMetrics) {
    const registers = [metrics.registry];
    this.open = new Gauge({ name: 'qim_sync_streams_open', help: 'Streamed syncs (GET …/stream) open now', registers });
    this.pages = new Counter({ name: 'qim_sync_stream_pages_total', help: 'Pages written to streamed syncs', registers });
    this.ended = new Counter({
      name: 'qim_sync_streams_ended_total',
      help: 'Streamed syncs ended, by reason (life: QIM_SYNC_STREAM_MAX_MS; closing; gone: the client left; slow: a page unread for a whole wait; error)',
      labelNames: ['reason'],
      registers,
    });
  }
}

/**
 * `GET /v1/mailboxes/:user/stream`: the device's sync as one long response (server-sent events)
 * instead of one long poll per page. Each `page` event is the page a `GET …/entries` with the
 * previous event's `next_after` would answer (the same reader, so the same guarantees: every entry
 * after the cursor, or `CURSOR_EXPIRED`); the next page is read only after the previous one was
 * written, from its `next_after`. The first page is read before anything is sent, so a refusal
 * (403, 410, 503 …) is an ordinary error answer. A failure later is one `error` event (`status`,
 * `code`, `message`: the error body the same request would answer) and the end of the stream; the
 * device reconnects from its last `next_after`. The stream ends with an `end` event after
 * `streamMaxMs` (the server sets a connection's life, so a reconnect re-checks the token and moves
 * devices between replicas), when the service closes, or when a slow reader leaves a page unread
 * for a whole wait. Costs per page: one store read (woken reads batched as for long polls) and one
 * socket write — no request to parse, route, authenticate or validate.
 */
export function registerStreamRoute(app: FastifyInstance, opts: MailboxAppOptions): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const metrics = new StreamMetrics(opts.metrics);
  r.get(
    '/v1/mailboxes/:user/stream',
    {
      schema: {
        summary:
          "Sync the acting user's own mailbox as a stream of pages (text/event-stream): `page` events as entries arrive, " +
          "each read after the previous one's next_after; `error` (then the end) or `end` (reconnect from the last next_after)",
        security: BEARER,
        headers: actingHeaders,
        params: userParams,
        querystring: streamQuery(opts.syncMaxLimit),
        response: {
          200: {
            description: 'server-sent events: `page` (a sync answer), `error` ({status, code, message}), `end` ({next_after})',
            content: { 'text/event-stream': { schema: z.string() } },
          },
          ...errorResponses(['FORBIDDEN', 'CURSOR_EXPIRED', 'EPOCH_MISMATCH', 'CORRUPT_ENTRY', 'FRONTIER_GAP']),
        },
      },
    },
    async (request, reply) => {
      // A stream waits between pages: with long polls off (QIM_SYNC_MAX_WAIT_MS=0) it would spin.
      if (opts.syncMaxWaitMs === 0) throw new InvalidInputError('streamed sync is off on this service (QIM_SYNC_MAX_WAIT_MS is 0): sync with GET …/entries');
      const q = request.query;
      const res = reply.raw;
      const gone = new AbortController();
      const onClose = (): void => gone.abort();
      res.once('close', onClose);
      const base = {
        tenantId: request.headers['x-qim-tenant'],
        actingUser: request.headers['x-qim-user'],
        userId: request.params.user,
        limit: q.limit,
        maxBytes: q.max_bytes,
        signal: gone.signal,
      };
      let page: SyncPage;
      try {
        // The first page answers at once, before anything is sent: a refusal is an ordinary error answer.
        page = await opts.reader.sync({ ...base, after: q.after ?? null, waitMs: 0 });
      } catch (err) {
        res.off('close', onClose);
        throw err;
      }
      reply.hijack();
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-request-id': request.id });
      metrics.open.inc();
      const endAt = Date.now() + opts.syncStreamMaxMs;
      let reason: EndReason = 'life';
      try {
        for (;;) {
          if (gone.signal.aborted) break;
          metrics.pages.inc();
          if (!res.write(pageEvent(page)) && !(await drained(res, opts.syncMaxWaitMs))) {
            reason = gone.signal.aborted ? 'gone' : 'slow';
            break;
          }
          const left = endAt - Date.now();
          if (gone.signal.aborted || opts.reader.board.closed || left <= 0) break;
          page = await opts.reader.sync({ ...base, after: page.nextAfter, waitMs: Math.min(opts.syncMaxWaitMs, left) });
          // A wait that ended empty is written as a keep-alive page, unless the stream ends now anyway.
          if (page.entries.length === 0 && (gone.signal.aborted || opts.reader.board.closed || Date.now() >= endAt)) break;
        }
        if (reason === 'life') reason = gone.signal.aborted ? 'gone' : opts.reader.board.closed ? 'closing' : 'life';
        if (reason === 'life' || reason === 'closing') res.write(`event: end\ndata: ${JSON.stringify({ next_after: page.nextAfter.toString() })}\n\n`);
      } catch (err) {
        reason = gone.signal.aborted ? 'gone' : 'error';
        const mapped = mapError(err, request.id);
        if (mapped.serverFault) request.log.error({ err, code: mapped.body.code, requestId: request.id }, 'streamed sync failed');
        if (reason === 'error') res.write(`event: error\ndata: ${JSON.stringify({ status: mapped.status, ...mapped.body })}\n\n`);
      } finally {
        res.off('close', onClose);
        metrics.open.dec();
        metrics.ended.inc({ reason });
        // A reader too slow to take a page within a whole wait is cut off (its buffered pages dropped); it reconnects from its cursor.
        if (reason === 'slow') res.destroy();
        else res.end();
      }
    },
  );
}
