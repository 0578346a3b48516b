import { QimError } from '../errors/qim-error';
import type { ActingIdentity } from '../http/acting-headers';
import { userHeaders } from '../http/acting-headers';
import type { HttpTransport } from '../http/http-transport';
import type { SendInput, SendResult } from '../model/writer-model';
import type { Id128 } from '../wire/ids';
import { newId128, requireId128 } from '../wire/ids';
import { JsonReader } from '../wire/json-reader';
import { retentionJson } from '../wire/message-json';

function bodyBase64(body: Uint8Array | string): string {
  return (typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength)).toString('base64');
}

/** The wire body of one send (`POST /v1/messages`, an item of `POST /v1/messages/batch`); `name` prefixes the argument names in errors. */
export function sendBodyJson(input: SendInput, clientMessageId: Id128, name = ''): Record<string, unknown> {
  return {
    client_message_id: clientMessageId,
    conversation_id: requireId128(`${name}conversationId`, input.conversationId),
    kind: input.kind ?? 'normal',
    control: input.control ?? false,
    content_type: input.contentType ?? 'text/plain',
    body: bodyBase64(input.body),
    retention: retentionJson(input.retention ?? { kind: 'default' }),
  };
}

/** A send's answer, read field by field. */
export function sendResultOf(r: JsonReader, clientMessageId: Id128): SendResult {
  return {
    conversationId: r.id('conversation_id'),
    seq: r.u64('seq'),
    messageId: r.id('message_id'),
    createdAt: r.u64('created_at'),
    replay: r.boolean('replay'),
    clientMessageId,
  };
}

/**
 * `POST /v1/messages` as the acting user. The client message id is chosen once (or taken from the
 * input) and every retry (transport failure, 503) repeats the identical body, so the writer
 * commits the message at most once and answers a repeat with the first answer (`replay: true`).
 * 409 → `QimConflictError` (that id was used with other content), 403 → `QimForbiddenError`; every
 * error thrown after the id is chosen — an abort (`QimAbortedError`) included — carries the
 * `clientMessageId`, so a later retry can reuse it: the message may have been committed.
 */
export async function sendMessage(
  http: HttpTransport,
  who: ActingIdentity,
  input: SendInput,
  signal?: AbortSignal,
  attemptTimeoutMs?: number,
): Promise<SendResult> {
  const clientMessageId = input.clientMessageId === undefined ? newId128() : requireId128('clientMessageId', input.clientMessageId);
  try {
    const headers = userHeaders(who);
    const body = sendBodyJson(input, clientMessageId);
    const a = await http.call({ method: 'POST', path: '/v1/messages', headers, body, auth: true, signal, attemptTimeoutMs });
    return sendResultOf(new JsonReader(a.body, 'send', a.call, a.status), clientMessageId);
  } catch (err) {
    if (err instanceof QimError) err.clientMessageId = clientMessageId;
    throw err;
  }
}
