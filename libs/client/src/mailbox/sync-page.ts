import type { CallSite } from '../errors/qim-error';
import type { ActingIdentity } from '../http/acting-headers';
import { userHeaders } from '../http/acting-headers';
import type { HttpTransport } from '../http/http-transport';
import type { MailboxEntry, SyncPage, SyncPageOptions } from '../model/mailbox-model';
import { requireInt, requireU64 } from '../wire/ids';
import { JsonReader } from '../wire/json-reader';
import { messageOf } from '../wire/message-json';

function entryOf(e: JsonReader): MailboxEntry {
  return {
    seq: e.u64('seq'),
    createdAt: e.u64('created_at'),
    expiresAt: e.u64('expires_at'),
    events: e.objects('events').map((ev) => {
      const message = ev.nullableObject('message');
      const payload = ev.raw['payload'] === null && message !== null ? null : ev.bytes('payload');
      return { ordinal: ev.number('ordinal'), eventId: ev.id('event_id'), payload, message: message === null ? null : messageOf(message) };
    }),
  };
}

/** A page's cursor and budgets, checked, as query parameters (of `GET …/entries` and `GET …/stream`). */
export function pageQueryOf(opts: { readonly after?: bigint | null; readonly limit?: number; readonly maxBytes?: number }): {
  after: bigint | null;
  query: { after?: string; limit?: number; max_bytes?: number };
} {
  const after = opts.after === undefined || opts.after === null ? null : requireU64('after', opts.after);
  return {
    after,
    query: {
      after: after === null ? undefined : after.toString(),
      limit: opts.limit === undefined ? undefined : requireInt('limit', opts.limit, 1, 1_000_000),
      max_bytes: opts.maxBytes === undefined ? undefined : requireInt('maxBytes', opts.maxBytes, 1, 16 * 1024 * 1024),
    },
  };
}

/**
 * `GET /v1/mailboxes/:user/entries` for the acting user's own mailbox: entries after `after`, up to
 * what the service has proven delivered. With `waitMs` the service holds the request until entries
 * arrive or the wait ends (then an empty page). 410 → `QimResyncRequiredError`.
 */
export async function syncPage(http: HttpTransport, who: ActingIdentity, opts: SyncPageOptions = {}): Promise<SyncPage> {
  const headers = userHeaders(who);
  const { after, query: page } = pageQueryOf(opts);
  const query = { ...page, wait_ms: opts.waitMs === undefined || opts.waitMs === 0 ? undefined : requireInt('waitMs', opts.waitMs, 0, 3_600_000) };
  const a = await http.call({
    method: 'GET',
    path: `/v1/mailboxes/${headers['x-qim-user']}/entries`,
    query,
    headers,
    auth: true,
    extraTimeoutMs: query.wait_ms ?? 0,
    signal: opts.signal,
  });
  return syncPageOf(a.body, after, a.call, a.status);
}

/** A sync answer's body (of `GET …/entries`, or a stream's `page` event) as a `SyncPage` read after `after`. */
export function syncPageOf(body: unknown, after: bigint | null, call: CallSite, status: number): SyncPage {
  const r = new JsonReader(body, 'sync', call, status);
  return { after, entries: r.objects('entries').map(entryOf), nextAfter: r.u64('next_after'), hasMore: r.boolean('has_more'), upTo: r.u64('up_to') };
}

/** `POST /v1/mailboxes/:user/truncate`: entries at or below `before` become unreadable (cursors below → 410). */
export async function truncateMailbox(http: HttpTransport, who: ActingIdentity, before: bigint, signal?: AbortSignal): Promise<void> {
  const headers = userHeaders(who);
  const body = { before: requireU64('before', before).toString() };
  await http.call({ method: 'POST', path: `/v1/mailboxes/${headers['x-qim-user']}/truncate`, body, headers, auth: true, signal });
}
