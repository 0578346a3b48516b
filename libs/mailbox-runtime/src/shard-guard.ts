/** What the mailbox knows of one shard before it runs it: the store's frontier and the partition's offsets. */
export interface ShardPositions {
  readonly shard: number;
  readonly epoch: number;
  /** The store's frontier for `(shard, epoch)` (null: nothing applied yet). */
  readonly frontier: bigint | null;
  /** Log start offset of the partition (earlier records were deleted). */
  readonly low: bigint;
  /** Log end offset of the partition (the next record's offset). */
  readonly end: bigint;
  /** The shard group's committed offset (null: none). */
  readonly committed: bigint | null;
  /** Largest page (records): a frontier at least one page past `low` means some page was committed. */
  readonly pageRecords: number;
}

/** Why a shard must not run, and the operator action that resolves it. */
export interface ShardRefusal {
  readonly kind: 'topic-recreated' | 'records-lost' | 'group-ahead' | 'group-lost';
  readonly reason: string;
  readonly resolve: string;
}

/** The admin command that moves the shard group back to the store's frontier + 1. */
export const resetCommandFor = (shard: number): string =>
  `node dist/apps/admin/main.js reset-mailbox-offsets --shard ${shard} (with the mailbox's environment, every mailbox process stopped)`;

const newEpoch = (epoch: number): string =>
  `start a new mailbox epoch: stop every mailbox, set QIM_MAILBOX_EPOCH=${epoch + 1} ` +
  `(a new shard group and new frontiers over the topic as it is now), start again; ` +
  `the old epoch's entries stay readable until they expire`;

/**
 * Compares the store's progress on a shard with Kafka's (ADR-0022 §1; issue 11 items 4 and 11), so
 * the mailbox never skips: the store treats a page at or below its frontier as applied, so a
 * partition whose offsets no longer match the frontier would be skipped silently. Refuses when:
 * - `end ≤ frontier`: the topic was recreated or truncated (offsets restarted below the frontier);
 * - `low > frontier + 1`: records after the frontier were deleted before they were applied;
 * - `committed > frontier + 1` (or, with no frontier, `committed > low`): the group is ahead of the
 *   store (a store restored from a backup, another backend's group, lost writes);
 * - no committed offset while the frontier is at least a page past `low`: the group's offsets were
 *   deleted (with its topic, or by hand) although pages were committed; reading from the start would
 *   treat a recreated topic's first records as already applied.
 * Null: the shard may run.
 */
export function judgeShard(p: ShardPositions): ShardRefusal | null {
  const at = `shard ${p.shard} epoch ${p.epoch}`;
  const f = p.frontier;
  if (f !== null && p.end <= f) {
    return {
      kind: 'topic-recreated',
      reason: `${at}: the dispatch partition ends at offset ${p.end} but the store's frontier is ${f}: the topic was recreated or truncated`,
      resolve: newEpoch(p.epoch),
    };
  }
  if (f !== null && p.low > f + 1n) {
    return {
      kind: 'records-lost',
      reason:
        `${at}: the dispatch partition starts at offset ${p.low} but the store's frontier is ${f}: ` +
        `records ${f + 1n}…${p.low - 1n} were deleted before they were applied`,
      resolve: newEpoch(p.epoch),
    };
  }
  const next = f === null ? p.low : f + 1n;
  if (p.committed !== null && p.committed > next) {
    return {
      kind: 'group-ahead',
      reason:
        `${at}: the shard group committed offset ${p.committed} ` +
        `but the store has applied up to ${f ?? 'nothing'} (next ${next}): the group is ahead of the store`,
      resolve: resetCommandFor(p.shard),
    };
  }
  if (p.committed === null && f !== null && f >= p.low + BigInt(p.pageRecords)) {
    return {
      kind: 'group-lost',
      reason: `${at}: the shard group has no committed offset but the store's frontier is ${f}: the group's offsets were deleted or the topic was recreated`,
      resolve: `if the topic is the same, ${resetCommandFor(p.shard)}; if it was recreated, ${newEpoch(p.epoch)}`,
    };
  }
  return null;
}

/** A page of a refused shard: the consumer pauses the partition and commits nothing. */
export class ShardRefusedError extends Error {
  constructor(readonly refusal: ShardRefusal) {
    super(`${refusal.reason}; to resolve: ${refusal.resolve}`);
    this.name = 'ShardRefusedError';
  }
}
