import { errorOfAnswer } from '../errors/error-of-answer';
import type { CallSite } from '../errors/qim-error';
import { QimError, QimProtocolError, withClientMessageId } from '../errors/qim-error';
import type { ActingIdentity } from '../http/acting-headers';
import { userHeaders } from '../http/acting-headers';
import type { HttpTransport } from '../http/http-transport';
import type { RetryPolicy } from '../http/retry-policy';
import { retryDelayMs, sleep } from '../http/retry-policy';
import type { SendInput, SendManyItem } from '../model/writer-model';
import type { Id128 } from '../wire/ids';
import { newId128, requireId128 } from '../wire/ids';
import { JsonReader } from '../wire/json-reader';
import { sendBodyJson, sendResultOf } from './send-message';

/** Items answered this way are sent again in the next round (the writer's own "retry later"). */
const RETRY_LATER: ReadonlySet<number> = new Set([503, 429]);

interface Pending {
  readonly index: number;
  readonly clientMessageId: Id128;
  readonly body: Record<string, unknown>;
}

interface Answered {
  readonly item: SendManyItem;
  /** The writer asked for this item to be sent again later (503/429). */
  readonly retryLater: boolean;
}

/** One result of the answer, read field by field: the send's result or its typed error. */
function itemOf(r: JsonReader, p: Pending, call: CallSite): Answered {
  const status = r.number('status');
  if (status === 200)
    return { item: { ok: true, clientMessageId: p.clientMessageId, result: sendResultOf(r.object('body'), p.clientMessageId) }, retryLater: false };
  const error = errorOfAnswer(status, r.raw['body'], call);
  error.clientMessageId = p.clientMessageId;
  return { item: { ok: false, clientMessageId: p.clientMessageId, error }, retryLater: RETRY_LATER.has(status) };
}

/** The whole request failed: every item fails with that error, each copy carrying its own client message id. */
function failedAll(err: unknown, pending: readonly Pending[]): Answered[] {
  if (!(err instanceof QimError)) throw err;
  return pending.map((p) => ({
    item: { ok: false, clientMessageId: p.clientMessageId, error: withClientMessageId(err, p.clientMessageId) },
    retryLater: false,
  }));
}

async function round(
  http: HttpTransport,
  who: ActingIdentity,
  pending: readonly Pending[],
  signal: AbortSignal | undefined,
  attemptTimeoutMs: number | undefined,
): Promise<Answered[]> {
  try {
    const headers = userHeaders(who);
    const a = await http.call({
      method: 'POST',
      path: '/v1/messages/batch',
      headers,
      body: { messages: pending.map((p) => p.body) },
      auth: true,
      signal,
      attemptTimeoutMs,
    });
    const results = new JsonReader(a.body, 'sendMany', a.call, a.status).objects('results');
    if (results.length !== pending.length) throw new QimProtocolError(`sendMany: ${results.length} results for ${pending.length} sends`, a.status, a.call);
    return results.map((r, i) => itemOf(r, pending[i]!, a.call));
  } catch (err) {
    return failedAll(err, pending);
  }
}

/**
 * `POST /v1/messages/batch` as the acting user: every input in one request, each with its own client
 * message id (chosen once, or taken from the input), answered on its own in input order — partial
 * success is normal. Each item has the idempotency and the errors of `sendMessage`: a failure is the
 * typed error a single send would throw (`QimConflictError`, `QimForbiddenError`, …) carrying its
 * `clientMessageId`. Items answered 503 are sent again (same ids, only those) in further requests
 * under the retry policy; the request itself is retried like any call. A failure of the whole request
 * (`BATCH_TOO_LARGE` past the writer's `QIM_SEND_BATCH_MAX`, a transport failure, an abort) fails
 * every item with it. A malformed input throws `QimArgumentError` before anything is sent.
 */
export async function sendMany(
  http: HttpTransport,
  who: ActingIdentity,
  inputs: readonly SendInput[],
  policy: RetryPolicy,
  signal?: AbortSignal,
  attemptTimeoutMs?: number,
): Promise<SendManyItem[]> {
  let pending: Pending[] = inputs.map((input, index) => {
    const clientMessageId = input.clientMessageId === undefined ? newId128() : requireId128(`inputs[${index}].clientMessageId`, input.clientMessageId);
    return { index, clientMessageId, body: sendBodyJson(input, clientMessageId, `inputs[${index}].`) };
  });
  const out: SendManyItem[] = new Array<SendManyItem>(inputs.length);
  for (let attempt = 1; pending.length > 0; attempt++) {
    const answered = await round(http, who, pending, signal, attemptTimeoutMs);
    const again = pending.filter((p, i) => {
      out[p.index] = answered[i]!.item;
      return answered[i]!.retryLater && attempt < policy.attempts;
    });
    if (again.length > 0 && !(await pause(retryDelayMs(policy, attempt, null), signal))) break;
    pending = again;
  }
  return out;
}

/** False when the caller aborted during the pause (the items keep their last answer). */
async function pause(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  try {
    await sleep(ms, signal);
    return true;
  } catch {
    return false;
  }
}
