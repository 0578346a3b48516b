import { QimConflictError, QimForbiddenError } from '@qim/client';
import type { QimClient, SendResult } from '@qim/client';
import { codeOf, isRetryable, sleep } from './errors';
import type { SendAnswer, SendRecord } from './model';

export function answerOf(r: SendResult, via: string): SendAnswer {
  return { seq: r.seq, messageId: r.messageId, createdAt: r.createdAt, replay: r.replay, via };
}

export interface SendRoute {
  readonly client: QimClient;
  readonly via: string;
}

/**
 * Sends `rec` (its client message id and body, never changed) until a route answers, at most
 * `rounds` times, moving to the next route after each failure. Returns the answer, or null when
 * the send was refused or every round failed; the record keeps every answer and error code.
 */
export async function sendUntilAnswered(
  rec: SendRecord,
  routes: readonly SendRoute[],
  rounds: number,
  into: SendAnswer[],
  pauseMs = 400,
): Promise<SendAnswer | null> {
  for (let round = 0; round < rounds; round += 1) {
    const route = routes[round % routes.length]!;
    try {
      const a = answerOf(await route.client.send({ conversationId: rec.conversationId, body: rec.body, clientMessageId: rec.clientMessageId }), route.via);
      into.push(a);
      return a;
    } catch (err) {
      rec.errors.push(codeOf(err));
      if (err instanceof QimForbiddenError || err instanceof QimConflictError) return null;
      if (!isRetryable(err)) return null;
      await sleep(Math.min(pauseMs * (round + 1), 3_000));
    }
  }
  return null;
}
