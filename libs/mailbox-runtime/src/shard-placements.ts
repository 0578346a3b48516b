import type { Id128 } from '@qim/store-core';
import { shardOf } from '@qim/store-core';

/** Users whose shard is remembered (≈ 150 bytes each) before the memo starts afresh. */
const DEFAULT_CAPACITY = 65_536;

/**
 * `shardOf` — one SHA-256 per call — remembered per user. The same users are placed over and over:
 * the router places every recipient of every message (a 1,000-member conversation is 1,000 hashes
 * per message) and a device's every sync needs its shard. The memo is cleared when full, so it is
 * bounded and a miss only costs the hash again.
 */
export class ShardPlacements {
  private readonly memo = new Map<string, number>();

  constructor(
    readonly shardCount: number,
    private readonly capacity = DEFAULT_CAPACITY,
  ) {}

  of(tenantId: Id128, userId: Id128): number {
    const key = tenantId + userId;
    let shard = this.memo.get(key);
    if (shard === undefined) {
      shard = shardOf(tenantId, userId, this.shardCount);
      if (this.memo.size >= this.capacity) this.memo.clear();
      this.memo.set(key, shard);
    }
    return shard;
  }
}
