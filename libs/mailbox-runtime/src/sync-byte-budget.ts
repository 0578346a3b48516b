import type { MailboxEntry } from '@qim/store-core';

/** Bytes an entry costs a sync page: its event payloads (what the answer carries, before base64). */
export function entryBytes(e: MailboxEntry): number {
  let n = 0;
  for (const ev of e.events) n += ev.payload.length;
  return n;
}

/**
 * The longest prefix of `entries` within `maxBytes`; the first entry is always kept whole, so a page
 * always makes progress (as history pages do).
 */
export function cutByBytes(entries: readonly MailboxEntry[], maxBytes: number): readonly MailboxEntry[] {
  let used = 0;
  for (let i = 0; i < entries.length; i++) {
    used += entryBytes(entries[i]!);
    if (i > 0 && used > maxBytes) return entries.slice(0, i);
  }
  return entries;
}
