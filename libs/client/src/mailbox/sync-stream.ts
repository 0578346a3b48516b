import { errorOfAnswer } from '../errors/error-of-answer';
import type { CallSite } from '../errors/qim-error';
import { QimError, QimProtocolError, QimTransportError } from '../errors/qim-error';
import type { ActingIdentity } from '../http/acting-headers';
import { userHeaders } from '../http/acting-headers';
import type { HttpTransport } from '../http/http-transport';
import type { StreamOptions, SyncPage } from '../model/mailbox-model';
import { pageQueryOf, syncPageOf } from './sync-page';

/** One server-sent event: its name and its data (the `data:` lines joined by newlines). */
export interface SseEvent {
  readonly event: string;
  readonly data: string;
}

/**
 * Splits a text stream into server-sent events (the subset the mailbox writes: `event:` and `data:`
 * lines, a blank line ending each event; `:` comments and other fields are skipped). A last event
 * without its blank line is not answered: the stream ended in the middle of it.
 */
export async function* sseEvents(chunks: AsyncIterable<string>): AsyncGenerator<SseEvent, void, undefined> {
  let buffer = '';
  for await (const chunk of chunks) {
    buffer += chunk;
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
      }
      if (data.length > 0 || event !== 'message') yield { event, data: data.join('\n') };
    }
  }
}

function jsonOf(data: string, what: string, call: CallSite): unknown {
  try {
    return JSON.parse(data);
  } catch {
    throw new QimProtocolError(`GET ${call.path}: a stream's ${what} event is not JSON`, 200, call);
  }
}

/**
 * `GET /v1/mailboxes/:user/stream`: the acting user's mailbox as pages pushed by the service over one
 * connection, each read after the previous page's `nextAfter` (the first after `after`). Ends when
 * the service ends the stream (`end`: its life is bounded by the server; call again from the last
 * page's `nextAfter`). A refusal at the start and an `error` event later are thrown as the typed
 * error of that answer (410 → `QimResyncRequiredError`); a connection lost mid-stream is a
 * `QimTransportError`. Aborting the signal closes the connection and ends the iteration quietly.
 */
export async function* syncStream(http: HttpTransport, who: ActingIdentity, opts: StreamOptions = {}): AsyncGenerator<SyncPage, void, undefined> {
  const headers = userHeaders(who);
  const start = pageQueryOf(opts);
  let after = start.after;
  const query = start.query;
  const { stream, call } = await http.openStream({ path: `/v1/mailboxes/${headers['x-qim-user']}/stream`, query, headers, signal: opts.signal });
  try {
    for await (const e of sseEvents(stream.chunks)) {
      if (e.event === 'page') {
        const page = syncPageOf(jsonOf(e.data, 'page', call), after, call, 200);
        after = page.nextAfter;
        yield page;
      } else if (e.event === 'error') {
        const body = jsonOf(e.data, 'error', call) as { status?: unknown };
        throw errorOfAnswer(typeof body.status === 'number' ? body.status : 500, body, call);
      } else if (e.event === 'end') {
        return;
      }
    }
    if (opts.signal?.aborted) return;
    throw new QimTransportError(`GET ${call.path}: the stream was closed before its end event`, false, 1, call, null);
  } catch (err) {
    if (opts.signal?.aborted) return;
    if (err instanceof QimError) throw err;
    throw new QimTransportError(`GET ${call.path}: the stream failed: ${err instanceof Error ? err.message : String(err)}`, false, 1, call, err);
  } finally {
    stream.close();
  }
}
