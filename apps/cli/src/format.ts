import type { MailboxEntry, Message } from '@qim/client';

/** One JSON document on one line: u64s (bigint) as decimal strings, bytes as base64. */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'bigint') return v.toString();
    if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
    return v;
  });
}

const isText = (contentType: string) => /^text\//.test(contentType);

/** A message body for a terminal: text as text, anything else as its size and type. */
export function bodyText(m: Message): string {
  return isText(m.contentType) ? Buffer.from(m.body).toString('utf8') : `<${m.body.length} bytes ${m.contentType}>`;
}

/** A message for `--json`: the client's fields plus `text` for text bodies. */
export function messageJson(m: Message): Record<string, unknown> {
  return isText(m.contentType) ? { ...m, text: bodyText(m) } : { ...m };
}

const time = (ms: bigint) => new Date(Number(ms)).toISOString();

/** `#7 2024-05-01T10:00:00.000Z <sender>: text` (plus the kind when it is not normal). */
export function messageLine(m: Message): string {
  const kind = m.kind === 'normal' ? '' : ` [${m.kind}]`;
  return `#${m.seq} ${time(m.createdAt)} ${m.senderId}${kind}: ${bodyText(m)}`;
}

/** One line per event of a mailbox entry: `@<mailbox seq> <conversation> #7 … <sender>: text`. */
export function entryLines(e: MailboxEntry): string[] {
  return e.events.map((ev) =>
    ev.message === null
      ? `@${e.seq} event ${ev.eventId} <${ev.payload?.length ?? 0} bytes>`
      : `@${e.seq} ${ev.message.conversationId} ${messageLine(ev.message)}`,
  );
}

/** An entry for `--json`: its messages with `text`. */
export function entryJson(e: MailboxEntry): Record<string, unknown> {
  return { ...e, events: e.events.map((ev) => ({ ...ev, message: ev.message === null ? null : messageJson(ev.message) })) };
}
