import { QimResyncRequiredError } from '@qim/client';
import type { Id128, Message, QimClient } from '@qim/client';
import { isRetryable, sleep } from './errors';
import type { MailboxRead, SeenEntry, SeenMessage } from './model';
import { messageKey } from './model';

export function seen(m: Message): SeenMessage {
  return {
    conversationId: m.conversationId,
    seq: m.seq,
    messageId: m.messageId,
    clientMessageId: m.clientMessageId,
    body: Buffer.from(m.body).toString('utf8'),
    createdAt: m.createdAt,
  };
}

/** Repeats a read while the service is unavailable (bounded). */
export async function retried<T>(read: () => Promise<T>, rounds = 20): Promise<T> {
  for (let round = 1; ; round += 1) {
    try {
      return await read();
    } catch (err) {
      if (round >= rounds || !isRetryable(err)) throw err;
      await sleep(500);
    }
  }
}

/** A conversation's whole history, oldest first, read in small pages. */
export async function readHistory(client: QimClient, conversationId: Id128, pageSize = 7): Promise<SeenMessage[]> {
  return retried(async () => {
    const out: SeenMessage[] = [];
    for await (const page of client.history(conversationId, { direction: 'newer', maxItems: pageSize })) out.push(...page.items.map(seen));
    return out;
  });
}

/** The acting user's whole mailbox from the start, `limit` events per page; a 410 is reported as such. */
export async function readMailbox(client: QimClient, limit: number): Promise<MailboxRead> {
  return retried(async () => {
    const entries: SeenEntry[] = [];
    let after: bigint | null = null;
    for (let pages = 0; pages < 100_000; pages += 1) {
      let page;
      try {
        page = await client.syncPage({ after, limit });
      } catch (err) {
        if (err instanceof QimResyncRequiredError) return { kind: 'expired', code: err.code } as const;
        throw err;
      }
      for (const e of page.entries) entries.push({ seq: e.seq, messages: e.events.flatMap((ev) => (ev.message ? [seen(ev.message)] : [])) });
      if (!page.hasMore) break;
      if (page.nextAfter === after) throw new Error(`mailbox cursor did not move at ${after}`);
      after = page.nextAfter;
    }
    return { kind: 'entries', entries } as const;
  });
}

/** The message keys a read holds. */
export function readKeys(read: MailboxRead): Set<string> {
  return read.kind === 'entries' ? new Set(read.entries.flatMap((e) => e.messages.map((m) => messageKey(m.conversationId, m.seq)))) : new Set();
}
