/** An id in wire form from a small number (tests read better with `hex(7)` than with 32 characters). */
export const hex = (n: number): string => n.toString(16).padStart(32, '0');

/** A message record in the services' wire form. */
export function messageJson(conversation: string, seq: number, sender: string, text: string): Record<string, unknown> {
  return {
    conversation_id: conversation,
    seq: String(seq),
    message_id: hex(0x10_000 + seq),
    sender_id: sender,
    client_message_id: hex(0x20_000 + seq),
    kind: 'normal',
    control: false,
    content_type: 'text/plain',
    body: Buffer.from(text).toString('base64'),
    created_at: String(1_700_000_000_000 + seq),
    retention: { kind: 'default' },
  };
}

/** A mailbox entry at `seq` carrying one message event (its bytes sent once, as the decoded message). */
export function entryJson(seq: bigint, message: Record<string, unknown>): Record<string, unknown> {
  return {
    seq: seq.toString(),
    created_at: '1700000000000',
    expires_at: '1800000000000',
    events: [{ ordinal: 0, event_id: String(message['message_id']), payload: null, message }],
  };
}

/** A sync answer. */
export function syncJson(entries: readonly Record<string, unknown>[], nextAfter: bigint, hasMore: boolean, upTo = nextAfter): Record<string, unknown> {
  return { entries, next_after: nextAfter.toString(), has_more: hasMore, up_to: upTo.toString() };
}
