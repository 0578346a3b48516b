import type { SendOutcome, SendRequest } from '@qim/store-core';
import type { Sender } from './send-deadline';

/** One item of a batch: its send's outcome, or what that send failed with (the error a single send would throw). */
export type BatchSendResult = { readonly ok: true; readonly outcome: SendOutcome } | { readonly ok: false; readonly error: unknown };

async function settle(sender: Sender, request: SendRequest, after: Promise<unknown>): Promise<BatchSendResult> {
  await after;
  try {
    return { ok: true, outcome: await sender.send(request) };
  } catch (error) {
    return { ok: false, error };
  }
}

/**
 * The sends of a batch (`POST /v1/messages/batch`), each through the single-send path `sender` (so
 * each has its own admission wait, deadline, idempotency and errors), all at once — concurrent sends
 * share the store's and the outbox's round trips. Answers in request order; a failure fails only its
 * own item. An item whose client id repeats an earlier item's is sent once that one has settled, so it
 * is answered exactly as a retry of it would be (the first answer with `replay`, or CONFLICT for other
 * content), never as a race between two sends of one id.
 */
export function sendBatch(sender: Sender, requests: readonly SendRequest[]): Promise<BatchSendResult[]> {
  const lastOfId = new Map<string, Promise<BatchSendResult>>();
  return Promise.all(
    requests.map((request) => {
      const p = settle(sender, request, lastOfId.get(request.clientMessageId) ?? Promise.resolve());
      lastOfId.set(request.clientMessageId, p);
      return p;
    }),
  );
}
