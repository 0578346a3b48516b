import { splitMailboxSeq } from '@qim/store-core';
import type { DispatchOutcome, DispatchPage, DispatchRecord, Id128, MailboxEntry, MailboxStore } from '@qim/store-core';
import { randomId, randomIds } from '../support/ids';
import { event, startOf, topOf } from './mailbox-fixtures';
import type { MailboxContext } from './mailbox-fixtures';

let conversationSeq = 0n;

/** What a test dispatch may override. */
export interface DispatchOptions {
  readonly dispatchId?: Id128;
  readonly createdAt?: bigint;
  /** Names the message in the event payload, so a reader can tell which content was applied. */
  readonly label?: string;
  readonly shard?: number;
}

/** A dispatch record of the case's tenant and shard for `recipients` (sorted here), one event labelled `label`. */
export function dispatchTo(c: MailboxContext, recipients: readonly Id128[], o: DispatchOptions = {}): DispatchRecord {
  const dispatchId = o.dispatchId ?? randomId();
  conversationSeq += 1n;
  return {
    dispatchId,
    tenantId: c.tenantId,
    shard: o.shard ?? c.shardEpoch.shard,
    messageId: randomId(),
    conversationId: randomId(),
    seq: conversationSeq,
    createdAt: o.createdAt ?? c.time.now(),
    recipients: [...recipients].sort(),
    events: [event(0, o.label ?? `message ${dispatchId}`)],
  };
}

/** A dispatch to `n` fresh recipients. */
export function dispatchToNew(c: MailboxContext, n: number, o: DispatchOptions = {}): DispatchRecord {
  return dispatchTo(c, randomIds(n), o);
}

/** The same dispatch id with other content (other recipients and payload): a conflicting reuse. */
export function conflictingWith(c: MailboxContext, d: DispatchRecord): DispatchRecord {
  return dispatchTo(c, [...d.recipients.slice(1), randomId()], { dispatchId: d.dispatchId, createdAt: d.createdAt, label: `conflict of ${d.dispatchId}` });
}

/** A page `[fromOffset, toOffset]` with `records` as `[offset, record]` pairs. */
export function pageOf(fromOffset: bigint, toOffset: bigint, records: readonly (readonly [bigint, DispatchRecord])[] = []): DispatchPage {
  return { fromOffset, toOffset, records: records.map(([offset, record]) => ({ offset, record })) };
}

export const applied = (offset: bigint, d: DispatchRecord): DispatchOutcome => ({
  offset,
  dispatchId: d.dispatchId,
  outcome: 'applied',
  canonicalOffset: offset,
});
export const duplicate = (offset: bigint, d: DispatchRecord, canonicalOffset: bigint): DispatchOutcome => ({
  offset,
  dispatchId: d.dispatchId,
  outcome: 'duplicate',
  canonicalOffset,
});
export const conflict = (offset: bigint, d: DispatchRecord, canonicalOffset: bigint): DispatchOutcome => ({
  offset,
  dispatchId: d.dispatchId,
  outcome: 'conflict',
  canonicalOffset,
});

/** The store's frontier offset (null: none yet). */
export async function frontierOf(store: MailboxStore): Promise<bigint | null> {
  return (await store.frontier()).offset;
}

/** Every entry of `user` in `(start of epoch, upTo]` (default: the whole epoch), following `next` across pages. */
export async function entriesOf(c: MailboxContext, store: MailboxStore, user: Id128, upTo: bigint = topOf(store)): Promise<MailboxEntry[]> {
  const out: MailboxEntry[] = [];
  let after = startOf(store);
  for (;;) {
    const page = await store.rangeScan(c.tenantId, user, after, upTo, 1_000);
    out.push(...page.entries);
    if (!page.hasMore) return out;
    after = page.next;
  }
}

/** An entry as `[source offset, payload text]`: what a reader can tell about which message it holds. */
export function offsetAndLabel(e: MailboxEntry): [bigint | null, string] {
  return [splitMailboxSeq(e.mailboxSeq).offset, e.events.map((ev) => Buffer.from(ev.payload).toString('utf8')).join('|')];
}

/** `user`'s entries as `[offset, label]` pairs. */
export async function inboxOf(c: MailboxContext, store: MailboxStore, user: Id128, upTo?: bigint): Promise<[bigint | null, string][]> {
  return (await entriesOf(c, store, user, upTo)).map(offsetAndLabel);
}

/** The label a dispatch's entries carry. */
export function labelOf(d: DispatchRecord): string {
  return d.events.map((ev) => Buffer.from(ev.payload).toString('utf8')).join('|');
}

/**
 * What every recipient must hold after `records` (in offset order) were applied: for each dispatch
 * id, the content of its lowest offset at that offset; later sights (duplicates, conflicts) add nothing.
 */
export function expectedInboxes(records: readonly (readonly [bigint, DispatchRecord])[]): Map<Id128, [bigint, string][]> {
  const first = new Map<Id128, bigint>();
  const inbox = new Map<Id128, [bigint, string][]>();
  for (const [offset, d] of [...records].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (first.has(d.dispatchId)) continue;
    first.set(d.dispatchId, offset);
    for (const u of d.recipients) inbox.set(u, [...(inbox.get(u) ?? []), [offset, labelOf(d)]]);
  }
  return inbox;
}

/** Every recipient (of any record) mapped to its entries in `store` as `[offset, label]` pairs. */
export async function actualInboxes(
  c: MailboxContext,
  store: MailboxStore,
  records: readonly (readonly [bigint, DispatchRecord])[],
  upTo?: bigint,
): Promise<Map<Id128, [bigint | null, string][]>> {
  const users = [...new Set(records.flatMap(([, d]) => d.recipients))];
  const out = new Map<Id128, [bigint | null, string][]>();
  for (const u of users) {
    const inbox = await inboxOf(c, store, u, upTo);
    if (inbox.length > 0) out.set(u, inbox);
  }
  return out;
}
