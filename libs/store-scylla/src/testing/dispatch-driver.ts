import { randomBytes } from 'node:crypto';
import type { DispatchPage, DispatchRecord, Id128, MailboxEntryInput } from '@qim/store-core';

/** A fresh random id. */
export function rid(): Id128 {
  return randomBytes(16).toString('hex') as Id128;
}

/** `n` fresh random ids, ascending (the order a dispatch record's recipients must have). */
export function sortedIds(n: number): Id128[] {
  return Array.from({ length: n }, rid).sort();
}

/** A mailbox entry of `userId` at `mailboxSeq` with `events` small events (payloads `e0`, `e1`, …). */
export function entryInput(tenantId: Id128, userId: Id128, mailboxSeq: bigint, createdAt: bigint, events = 1): MailboxEntryInput {
  return {
    tenantId,
    userId,
    mailboxSeq,
    createdAt,
    events: Array.from({ length: events }, (_, ordinal) => ({ ordinal, eventId: rid(), payload: Buffer.from(`e${ordinal}`) })),
  };
}

/** A random shard for one case (cases share a keyspace, never a shard). */
export function randomShard(): number {
  return Math.floor(Math.random() * 65_536);
}

/** A dispatch record of `shard` to `recipients` (sorted) with one 200-byte event. */
export function makeRecord(shard: number, tenantId: Id128, recipients: readonly Id128[], createdAt: bigint, dispatchId: Id128 = rid()): DispatchRecord {
  return {
    dispatchId,
    tenantId,
    shard,
    messageId: rid(),
    conversationId: rid(),
    seq: 1n,
    createdAt,
    recipients: [...recipients].sort(),
    events: [{ ordinal: 0, eventId: rid(), payload: randomBytes(200) }],
  };
}

/** A page `[fromOffset, toOffset]` holding `records` at their offsets. */
export function makePage(fromOffset: bigint, toOffset: bigint, records: readonly [bigint, DispatchRecord][]): DispatchPage {
  return { fromOffset, toOffset, records: records.map(([offset, record]) => ({ offset, record })) };
}
