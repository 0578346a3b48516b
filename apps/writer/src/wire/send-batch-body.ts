import type { ErrorBody } from '@qim/service-kit';
import { errorBodySchema } from '@qim/service-kit';
import type { SendRequest } from '@qim/store-core';
import { z } from 'zod';
import type { SendBody } from './send-body';
import { sendAnswerSchema, sendBodySchema, sendRequestOf } from './send-body';

/** An item that is not a valid send body: refused alone (400 INVALID_INPUT), with the paths of what is wrong. */
export interface InvalidItem {
  readonly invalid: ErrorBody;
}

function invalidItem(index: number, raw: unknown): InvalidItem {
  const issues = sendBodySchema.safeParse(raw).error?.issues ?? [];
  const message = issues.map((i) => `${['messages', index, ...i.path].join('.')}: ${i.message}`).join('; ');
  return { invalid: { code: 'INVALID_INPUT', message: message.length > 0 ? message : `messages.${index}: invalid` } };
}

/** A batch item as the route received it: a valid send body (parsed once, defaults applied) or the raw value. */
export type BatchItem = { readonly ok: true; readonly body: SendBody } | { readonly ok: false; readonly raw: unknown };

/**
 * One item of a batch: a valid send body, or anything else, kept raw so that only this item is
 * refused. The document shows the send body's schema.
 */
const batchItem = z.union([
  sendBodySchema.transform((body): BatchItem => ({ ok: true, body })),
  z
    .unknown()
    .describe('anything else: this item alone is answered 400 INVALID_INPUT')
    .transform((raw): BatchItem => ({ ok: false, raw })),
]);

/** `POST /v1/messages/batch` body: the sends, each as the body of `POST /v1/messages`. */
export function sendBatchBodySchema(maxItems: number) {
  return z
    .object({
      messages: z
        .array(batchItem)
        .min(1)
        .describe(`the sends (at most QIM_SEND_BATCH_MAX, ${maxItems} here; more is 413 BATCH_TOO_LARGE), each with its own client_message_id`),
    })
    .strict();
}

/** Each item as the send request of the acting user, or what is wrong with it (an invalid item is checked again here, for its issues). */
export function sendBatchRequestsOf(
  items: readonly BatchItem[],
  tenantId: SendRequest['tenantId'],
  senderId: SendRequest['senderId'],
): (SendRequest | InvalidItem)[] {
  return items.map((item, i) => (item.ok ? sendRequestOf(item.body, tenantId, senderId) : invalidItem(i, item.raw)));
}

/** One item's answer: the status and body a single `POST /v1/messages` of it would have had. */
export const sendBatchResultSchema = z.union([
  z.object({ status: z.literal(200), body: sendAnswerSchema }),
  z.object({ status: z.number().int().min(400).max(599).describe('the status a single send of this item would have had'), body: errorBodySchema }),
]);

export const sendBatchAnswerSchema = z.object({
  results: z.array(sendBatchResultSchema).describe('one per sent item, in request order'),
});

export type SendBatchResult = z.infer<typeof sendBatchResultSchema>;
