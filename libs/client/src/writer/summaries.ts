import { QimArgumentError } from '../errors/qim-error';
import type { ActingIdentity } from '../http/acting-headers';
import { userHeaders } from '../http/acting-headers';
import type { HttpTransport } from '../http/http-transport';
import type { ConversationSummary, SummaryRequest } from '../model/writer-model';
import { requireId128, requireU64 } from '../wire/ids';
import { JsonReader } from '../wire/json-reader';
import { messageOf } from '../wire/message-json';

/** `POST /v1/summaries`: head seq, last message and unread count of 1…200 conversations of the acting user. */
export async function conversationSummaries(
  http: HttpTransport,
  who: ActingIdentity,
  items: readonly SummaryRequest[],
  signal?: AbortSignal,
): Promise<ConversationSummary[]> {
  if (items.length < 1 || items.length > 200) throw new QimArgumentError(`summaries take 1…200 conversations, got ${items.length}`);
  const conversations = items.map((c) => ({
    conversation_id: requireId128('conversationId', c.conversationId),
    ...(c.readSeq === undefined ? {} : { read_seq: requireU64('readSeq', c.readSeq).toString() }),
  }));
  const a = await http.call({ method: 'POST', path: '/v1/summaries', body: { conversations }, headers: userHeaders(who), auth: true, signal });
  return new JsonReader(a.body, 'summaries', a.call, a.status).objects('summaries').map((s) => ({
    conversationId: s.id('conversation_id'),
    headSeq: s.u64('head_seq'),
    last: (() => {
      const last = s.nullableObject('last');
      return last === null ? null : messageOf(last);
    })(),
    unread: s.number('unread'),
    precise: s.boolean('precise'),
  }));
}
