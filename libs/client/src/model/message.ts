import type { Id128 } from './id128';

/** Message kinds a client may send. */
export type MessageKind = 'normal' | 'edited' | 'recalled' | 'system';

/** How long a message is kept. `ephemeral` messages expire `ttlSeconds` after their creation. */
export type Retention =
  | { readonly kind: 'default' }
  | { readonly kind: 'ephemeral'; readonly ttlSeconds: number }
  | { readonly kind: 'tenant_custom' }
  | { readonly kind: 'compliance_hold' };

/** A stored message as the services return it (history, summaries, mailbox events). */
export interface Message {
  readonly conversationId: Id128;
  /** Position in the conversation (1, 2, …). */
  readonly seq: bigint;
  readonly messageId: Id128;
  readonly senderId: Id128;
  /** The sender's client message id. */
  readonly clientMessageId: Id128;
  readonly kind: string;
  readonly control: boolean;
  readonly contentType: string;
  readonly body: Uint8Array;
  /** ms since the Unix epoch. */
  readonly createdAt: bigint;
  readonly retention: Retention;
}
