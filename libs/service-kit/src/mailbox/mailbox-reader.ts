import type { Id128, MailboxEntry, MailboxStore } from '@qim/store-core';
import { ForbiddenError, epochStartSeq, laneOf, seqForWatermark, shardOf } from '@qim/store-core';

export interface SyncPage {
  readonly entries: readonly MailboxEntry[];
  readonly nextAfter: bigint;
  readonly hasMore: boolean;
  readonly upTo: bigint;
}

/**
 * Device sync over the mailbox stores: a user's entries up to the proven watermark of their lane
 * (`up_to = seqForWatermark(epoch, W)`), never beyond. A user reads only their own mailbox.
 */
export class MailboxReader {
  constructor(
    private readonly storeFor: (shard: number) => Promise<MailboxStore>,
    private readonly shardCount: number,
    private readonly epoch: number,
  ) {}

  private async storeOf(tenantId: Id128, userId: Id128): Promise<MailboxStore> {
    return this.storeFor(shardOf(tenantId, userId, this.shardCount));
  }

  private assertOwner(actingUser: Id128, userId: Id128): void {
    if (actingUser !== userId) throw new ForbiddenError('a user may read and truncate only their own mailbox');
  }

  /** Entries after `after` (default: the start of the current epoch), at most `limit` events. */
  async sync(tenantId: Id128, actingUser: Id128, userId: Id128, after: bigint | null, limit: number): Promise<SyncPage> {
    this.assertOwner(actingUser, userId);
    const store = await this.storeOf(tenantId, userId);
    const { w } = await store.laneWatermark(laneOf(tenantId, userId));
    const upTo = seqForWatermark(this.epoch, w);
    const from = after ?? epochStartSeq(this.epoch);
    const page = await store.rangeScan(tenantId, userId, from, upTo, limit);
    return { entries: page.entries, nextAfter: page.next, hasMore: page.hasMore, upTo };
  }

  /** Raises the user's trim: entries at or below `before` become unreadable (cursors below → CURSOR_EXPIRED). */
  async truncate(tenantId: Id128, actingUser: Id128, userId: Id128, before: bigint): Promise<void> {
    this.assertOwner(actingUser, userId);
    const store = await this.storeOf(tenantId, userId);
    await store.truncateBefore(tenantId, userId, before);
  }
}
