import type { WatchedGroup } from './consumer-lag';

/** How the mailbox names its consumer groups: `<clientId>-router` on the messages topic, `<clientId>-shards-e<epoch>` on the dispatch topic. */
export interface MailboxGroupNaming {
  /** The mailbox's `QIM_KAFKA_CLIENT_ID`. */
  readonly clientId: string;
  readonly messagesTopic: string;
  readonly dispatchTopic: string;
}

/** The mailbox's groups among the group ids a broker listed: the router group (null: not listed) and the shard groups by ascending epoch. */
export function mailboxGroupsAmong(
  listed: readonly string[],
  naming: MailboxGroupNaming,
): { router: string | null; shards: { groupId: string; epoch: number }[] } {
  const router = `${naming.clientId}-router`;
  const prefix = `${naming.clientId}-shards-e`;
  const shards: { groupId: string; epoch: number }[] = [];
  for (const id of listed) {
    if (!id.startsWith(prefix)) continue;
    const digits = id.slice(prefix.length);
    // The mailbox writes the epoch in plain decimal (0…65535): anything else is not its group.
    if (!/^(0|[1-9][0-9]{0,4})$/.test(digits)) continue;
    shards.push({ groupId: id, epoch: Number(digits) });
  }
  shards.sort((a, b) => a.epoch - b.epoch);
  return { router: listed.includes(router) ? router : null, shards };
}

/** The group reads the finder needs (`GroupOffsetsReader`). */
export interface GroupLister {
  listGroups(): Promise<string[]>;
  members(groupId: string): Promise<number>;
}

/**
 * Finds the mailbox's live consumer groups on the broker itself, so that the writer keeps no second
 * copy of the mailbox's epoch: the router group, and every shard group that has members (during a
 * rolling epoch change, both epochs'); with no shard group live, the newest epoch's (it then counts
 * for nothing, as a stopped mailbox does). Each shard group is watched with the older epochs' groups
 * (`replayOf`): the positions they committed mark what the new epoch merely replays.
 */
export class MailboxGroupFinder {
  constructor(
    private readonly source: GroupLister,
    private readonly naming: MailboxGroupNaming,
  ) {}

  async find(): Promise<WatchedGroup[]> {
    const { shards } = mailboxGroupsAmong(await this.source.listGroups(), this.naming);
    const members = await Promise.all(shards.map((s) => this.source.members(s.groupId)));
    let live = shards.filter((_, i) => members[i]! > 0);
    if (live.length === 0 && shards.length > 0) live = [shards[shards.length - 1]!];
    return [
      // Watched even when not listed yet (the mailbox has not joined): it then reads as without members.
      { groupId: `${this.naming.clientId}-router`, topic: this.naming.messagesTopic },
      ...live.map((s) => ({ groupId: s.groupId, topic: this.naming.dispatchTopic, replayOf: shards.filter((o) => o.epoch < s.epoch).map((o) => o.groupId) })),
    ];
  }
}
