import { GroupOffsetsReader, createKafka } from '@qim/bus';
import { InvalidInputError } from '@qim/store-core';
import { openMailboxBackend } from '@qim/backends';
import type { MailboxConfig } from './config/mailbox-config';
import type { StartupLog } from '@qim/backends';

/** What `resetMailboxOffsets` did for one shard. */
export interface ShardOffsetReset {
  readonly shard: number;
  readonly frontier: bigint | null;
  /** The group's committed offset before (null: none). */
  readonly committed: bigint | null;
  readonly low: bigint;
  readonly end: bigint;
  /**
   * `moved`: the committed offset was ahead of the store (or missing) and is now `to`;
   * `unchanged`: it was at or behind the store's next offset (re-applying is idempotent);
   * `refused`: the partition no longer holds the records after the frontier (a new epoch is needed).
   */
  readonly action: 'moved' | 'unchanged' | 'refused';
  readonly to: bigint | null;
  readonly reason: string | null;
}

/**
 * The operator's resolution of a shard refused because the group is ahead of the store (issue 11):
 * per shard (all, or `only`), the committed offset of the shard group is moved back to the store's
 * frontier + 1 (the partition's start while nothing is applied), so nothing the store lacks is
 * skipped. A shard whose partition ends at or below the frontier (topic recreated) or starts above
 * frontier + 1 (records deleted) is refused: only a new mailbox epoch resolves it. Kafka refuses the
 * move while a mailbox process is a member of the group (stop them first). Writes only Kafka offsets.
 */
export async function resetMailboxOffsets(config: MailboxConfig, only: number | null, step: StartupLog = () => undefined): Promise<ShardOffsetReset[]> {
  if (only !== null && (!Number.isInteger(only) || only < 0 || only >= config.shards)) {
    throw new InvalidInputError(`shard must be 0…${config.shards - 1}`);
  }
  const backend = await openMailboxBackend(
    config.backend,
    config.env,
    {
      epoch: config.epoch,
      gc: { entryRetentionMs: config.entryRetentionMs, dispatchDedupeMs: config.dispatchDedupeMs },
      applyConcurrency: config.applyConcurrency,
      clockSkewAllowanceMs: config.clockSkewAllowanceMs,
    },
    step,
  );
  const offsets = new GroupOffsetsReader(createKafka({ brokers: config.kafka.brokers, clientId: `${config.kafka.clientId}-admin` }));
  try {
    const partitions = await offsets.offsets(config.shardGroup, config.kafka.dispatchTopic);
    if (partitions.length !== config.shards) {
      throw new InvalidInputError(`dispatch topic ${config.kafka.dispatchTopic} has ${partitions.length} partitions, QIM_MAILBOX_SHARDS is ${config.shards}`);
    }
    const results: ShardOffsetReset[] = [];
    for (const p of partitions) {
      if (only !== null && p.partition !== only) continue;
      const { offset: frontier } = await (await backend.storeFor(p.partition)).frontier();
      const base = { shard: p.partition, frontier, committed: p.committed, low: p.low, end: p.end };
      if (frontier !== null && (p.end <= frontier || p.low > frontier + 1n)) {
        const why =
          p.end <= frontier
            ? `the partition ends at ${p.end}, at or below the frontier ${frontier} (topic recreated or truncated)`
            : `the partition starts at ${p.low}, past the frontier ${frontier} + 1 (records deleted)`;
        results.push({ ...base, action: 'refused', to: null, reason: `${why}: start a new mailbox epoch (QIM_MAILBOX_EPOCH=${config.epoch + 1})` });
        continue;
      }
      const next = frontier === null ? p.low : frontier + 1n;
      const move = p.committed === null ? frontier !== null : p.committed > next;
      results.push({ ...base, action: move ? 'moved' : 'unchanged', to: move ? next : null, reason: null });
    }
    const moves = results.filter((r) => r.action === 'moved').map((r) => ({ partition: r.shard, offset: r.to! }));
    if (moves.length > 0) {
      try {
        await offsets.setOffsets(config.shardGroup, config.kafka.dispatchTopic, moves);
      } catch (err) {
        throw new Error(
          `Kafka refused to move the offsets of group ${config.shardGroup} (stop every mailbox process first): ` +
            `${err instanceof Error ? err.message : String(err)}`,
        );
      }
    }
    return results;
  } finally {
    await offsets.close().catch(() => undefined);
    await backend.close();
  }
}
