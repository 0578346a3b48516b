import { QimArgumentError, QimProtocolError } from '../errors/qim-error';
import type { ActingIdentity } from '../http/acting-headers';
import { userHeaders } from '../http/acting-headers';
import type { HttpTransport } from '../http/http-transport';
import type { HistoryOptions, HistoryPage } from '../model/writer-model';
import type { Id128 } from '../wire/ids';
import { requireId128, requireInt, requireU64 } from '../wire/ids';
import { JsonReader } from '../wire/json-reader';
import { messageOf } from '../wire/message-json';

/** `GET /v1/conversations/:id/messages`: one history page (members only; others get `QimForbiddenError`). */
export async function historyPage(http: HttpTransport, who: ActingIdentity, conversationId: Id128, opts: HistoryOptions = {}): Promise<HistoryPage> {
  const id = requireId128('conversationId', conversationId);
  const direction = opts.direction ?? 'older';
  if (direction !== 'older' && direction !== 'newer') throw new QimArgumentError(`direction must be older or newer, got ${String(direction)}`);
  const query = {
    direction,
    anchor: opts.anchor === undefined ? undefined : requireU64('anchor', opts.anchor).toString(),
    max_items: opts.maxItems === undefined ? undefined : requireInt('maxItems', opts.maxItems, 1, 1000),
    max_bytes: opts.maxBytes === undefined ? undefined : requireInt('maxBytes', opts.maxBytes, 1, 16 * 1024 * 1024),
  };
  const a = await http.call({ method: 'GET', path: `/v1/conversations/${id}/messages`, query, headers: userHeaders(who), auth: true, signal: opts.signal });
  const r = new JsonReader(a.body, 'history', a.call, a.status);
  const answered = r.string('direction');
  if (answered !== direction) throw new QimProtocolError(`history answered direction ${answered} for ${direction}`, a.status, a.call);
  return {
    conversationId: r.id('conversation_id'),
    direction,
    items: r.objects('items').map(messageOf),
    hasMore: r.boolean('has_more'),
    nextAnchor: r.nullableU64('next_anchor'),
  };
}

/**
 * Every page from `opts.anchor` on, in `opts.direction`, following `next_anchor` until the service
 * says there is no more. An anchor that does not move is a service fault (`QimProtocolError`), never
 * an endless loop.
 */
export async function* historyPages(
  http: HttpTransport,
  who: ActingIdentity,
  conversationId: Id128,
  opts: HistoryOptions = {},
): AsyncGenerator<HistoryPage, void, undefined> {
  let anchor = opts.anchor;
  for (;;) {
    const page = await historyPage(http, who, conversationId, { ...opts, anchor });
    yield page;
    if (!page.hasMore || page.nextAnchor === null) return;
    if (page.nextAnchor === anchor) throw new QimProtocolError(`history anchor did not move from ${anchor}`, null, null);
    anchor = page.nextAnchor;
  }
}
