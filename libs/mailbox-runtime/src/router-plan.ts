import type { DispatchRecord, Id128, MailboxEvent, MessageEvent } from '@qim/store-core';
import { compareId128, dispatchIdOf, encodeMessageRecord } from '@qim/store-core';
import { ShardPlacements } from './shard-placements';

/**
 * The mailbox router's pure plan for one `qim.messages` event: recipients grouped by
 * `shardOf(tenant, user, shardCount)`, one `DispatchRecord` per shard that has recipients,
 * `dispatchId = dispatchIdOf(messageId, shard)`, ascending shard order. Every recipient gets the
 * same one-event group: ordinal 0, event id = message id, payload = the canonical record bytes.
 * Deterministic: the same event always yields byte-identical dispatch records. `shards` is the shard
 * count, or the remembered placements of that count (the router's, reused message after message).
 */
export function dispatchRecordsOf(event: MessageEvent, shards: number | ShardPlacements): DispatchRecord[] {
  const placements = typeof shards === 'number' ? new ShardPlacements(shards) : shards;
  const r = event.record;
  const events: MailboxEvent[] = [{ ordinal: 0, eventId: r.messageId, payload: encodeMessageRecord(r) }];
  const byShard = new Map<number, Id128[]>();
  for (const user of event.recipients) {
    const shard = placements.of(r.tenantId, user);
    const list = byShard.get(shard) ?? [];
    list.push(user);
    byShard.set(shard, list);
  }
  return [...byShard.entries()]
    .sort(([a], [b]) => a - b)
    .map(([shard, users]) => ({
      dispatchId: dispatchIdOf(r.messageId, shard),
      tenantId: r.tenantId,
      shard,
      messageId: r.messageId,
      conversationId: r.conversationId,
      seq: r.seq,
      createdAt: r.createdAt,
      recipients: [...new Set(users)].sort(compareId128),
      events,
    }));
}
