import type { Admin, Kafka } from 'kafkajs';

/** One partition's committed offset of a consumer group (null: none), its log start and end offsets. */
export interface PartitionOffsets {
  readonly partition: number;
  readonly committed: bigint | null;
  /** Log start offset: the first record still held (earlier ones were deleted by retention). */
  readonly low: bigint;
  /** Log end offset: the offset the next record will get. */
  readonly end: bigint;
  /** The metadata stored with the committed offset (null: none). */
  readonly metadata: string | null;
}

/**
 * Reads consumer-group offsets and log end offsets through one admin client, connected on first use
 * and reused by every later call (status routes poll it; a client per call would cost a connection
 * and a metadata round trip each time).
 */
export class GroupOffsetsReader {
  private admin: Promise<Admin> | null = null;

  constructor(private readonly kafka: Kafka) {}

  private connected(): Promise<Admin> {
    if (!this.admin) {
      const admin = this.kafka.admin();
      this.admin = admin.connect().then(() => admin);
      this.admin.catch(() => (this.admin = null));
    }
    return this.admin;
  }

  /** Per partition of `topic`, ascending: the committed offset of `groupId` and the end offset. */
  async offsets(groupId: string, topic: string): Promise<PartitionOffsets[]> {
    const admin = await this.connected();
    const [ends, groups] = await Promise.all([admin.fetchTopicOffsets(topic), admin.fetchOffsets({ groupId, topics: [topic] })]);
    const group = groups.find((g) => g.topic === topic);
    return ends
      .map((e) => {
        const stored = group?.partitions.find((p) => p.partition === e.partition);
        const c = stored?.offset;
        // Negative values are kafkajs/broker sentinels (-1 none, -2 "earliest" after an out-of-range reset): no real commit.
        const committed = c === undefined || c === '' || BigInt(c) < 0n ? null : BigInt(c);
        const metadata = committed === null || !stored?.metadata ? null : stored.metadata;
        return { partition: e.partition, committed, low: BigInt(e.low), end: BigInt(e.high), metadata };
      })
      .sort((a, b) => a.partition - b.partition);
  }

  /** The ids of the consumer groups the cluster knows now (with members, or whose committed offsets it still keeps). */
  async listGroups(): Promise<string[]> {
    const admin = await this.connected();
    return (await admin.listGroups()).groups.map((g) => g.groupId);
  }

  /** Members the group has now (0: nobody consumes for it — e.g. its service is down — or the group is unknown). */
  async members(groupId: string): Promise<number> {
    const admin = await this.connected();
    const { groups } = await admin.describeGroups([groupId]);
    return groups.find((g) => g.groupId === groupId)?.members.length ?? 0;
  }

  /**
   * Moves the committed offset of `groupId` for the given partitions (the group must have no
   * running member: the broker refuses otherwise, and the error says so).
   */
  async setOffsets(groupId: string, topic: string, partitions: ReadonlyArray<{ readonly partition: number; readonly offset: bigint }>): Promise<void> {
    const admin = await this.connected();
    await admin.setOffsets({ groupId, topic, partitions: partitions.map((p) => ({ partition: p.partition, offset: p.offset.toString() })) });
  }

  async close(): Promise<void> {
    const admin = this.admin;
    this.admin = null;
    if (admin) await (await admin).disconnect();
  }
}
