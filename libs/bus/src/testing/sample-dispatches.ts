import type { CommitIntent, DispatchRecord, Id128 } from '@qim/store-core';
import { compareId128, dispatchIdOf, encodeMessageRecord, messageEventOf } from '@qim/store-core';

/**
 * Valid dispatch records of one sample commit, for producer tests: the intent's recipients dealt
 * round the `shards` (recipient `i` to shard `(seq + i) mod shards`), one record per shard that got
 * any, in ascending shard order. Not the router's placement (`dispatchRecordsOf` in
 * `@qim/mailbox-runtime` hashes each user to its shard): a producer only needs records spread over
 * partitions, and a varying set of shards from one commit to the next.
 */
export function sampleDispatches(intent: CommitIntent, shards: number): DispatchRecord[] {
  const { record, recipients } = messageEventOf(intent);
  const events = [{ ordinal: 0, eventId: record.messageId, payload: encodeMessageRecord(record) }];
  const byShard = new Map<number, Id128[]>();
  recipients.forEach((user, i) => {
    const shard = Number((record.seq + BigInt(i)) % BigInt(shards));
    byShard.set(shard, [...(byShard.get(shard) ?? []), user]);
  });
  return [...byShard.entries()]
    .sort(([a], [b]) => a - b)
    .map(([shard, users]) => ({
      dispatchId: dispatchIdOf(record.messageId, shard),
      tenantId: record.tenantId,
      shard,
      messageId: record.messageId,
      conversationId: record.conversationId,
      seq: record.seq,
      createdAt: record.createdAt,
      recipients: users.sort(compareId128),
      events,
    }));
}
