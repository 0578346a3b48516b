import type { Id128 } from '../model/ids';
import type { SendRequest } from '../model/message';

const id = (n: number): Id128 => n.toString(16).padStart(32, '0') as Id128;

/**
 * The send request of the pure specs: tenant `…01`, sender `…02`, client message `…03`, conversation
 * `…04` (ids as 32 hex digits), a normal message "hi" of `text/plain`, default retention.
 */
export const SAMPLE_SEND_REQUEST: SendRequest = Object.freeze({
  tenantId: id(1),
  senderId: id(2),
  clientMessageId: id(3),
  conversationId: id(4),
  kind: 'normal',
  control: false,
  contentType: 'text/plain',
  body: Buffer.from('hi'),
  retention: Object.freeze({ kind: 'default' }),
});
