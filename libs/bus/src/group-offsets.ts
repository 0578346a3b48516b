import type { Admin, Kafka } from 'kafkajs';
import { UnavailableError } from '@qim/store-core';

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

export interface GroupOffsetsReaderOptions {
  /**
   * Longest wait for one call, connecting included (ms, default 10 000): past it the call fails with
   * `UnavailableError`. kafkajs alone waits its request timeout (30 s) on each of its retries for a
   * broker that accepts connections and never answers.
   */
  readonly callTimeoutMs?: number;
}

/**
 * Reads consumer-group offsets and log end offsets through one admin client, connected on first use
 * and reused by every later call (status routes poll it; a client per call would cost a connection
 * and a metadata round trip each time). Every call is bounded (`callTimeoutMs`); a call given up
 * goes on in kafkajs, its answer unused.
 */
export class GroupOffsetsReader {
  private admin: Promise<Admin> | null = null;
  private readonly callTimeoutMs: number;

  constructor(
    private readonly kafka: Kafka,
    opts: GroupOffsetsReaderOptions = {},
  ) {
    this.callTimeoutMs = opts.callTimeoutMs ?? 10_000;
  }

  /** `call` over the connected client, or `UnavailableError` naming `what` after `callTimeoutMs`. */
  private async bounded<T>(what: string, call: (admin: Admin) => Promise<T>): Promise<T> {
    const work = this.connected().then(call);
    work.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new UnavailableError(`kafka admin ${what} did not answer within ${this.callTimeoutMs} ms`)), this.callTimeoutMs);
    });
    try {
      return await Promise.race([work, late]);
    } finally {
      clearTimeout(timer);
    }
  }

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
    const [ends, groups] = await this.bounded(`offsets of ${groupId} on ${topic}`, (admin) =>
      Promise.all([admin.fetchTopicOffsets(topic), admin.fetchOffsets({ groupId, topics: [topic] })]),
    );
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
    const { groups } = await this.bounded(`members of ${groupId}`, (admin) => admin.describeGroups([groupId]));
    return groups.find((g) => g.groupId === groupId)?.members.length ?? 0;
  }

  /**
   * Moves the committed offset of `groupId` for the given partitions (the group must have no
   * running member: the broker refuses otherwise, and the error says so).
   */
  async setOffsets(groupId: string, topic: string, partitions: ReadonlyArray<{ readonly partition: number; readonly offset: bigint }>): Promise<void> {
    await this.bounded(`set offsets of ${groupId} on ${topic}`, (admin) =>
      admin.setOffsets({ groupId, topic, partitions: partitions.map((p) => ({ partition: p.partition, offset: p.offset.toString() })) }),
    );
  }

  /** Disconnects the client; a client whose connect has not ended within `callTimeoutMs` is left to it (disconnected once connected). */
  async close(): Promise<void> {
    const admin = this.admin;
    this.admin = null;
    if (!admin) return;
    const disconnected = admin.then((a) => a.disconnect());
    disconnected.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([disconnected, new Promise<void>((r) => (timer = setTimeout(r, this.callTimeoutMs)))]).finally(() => clearTimeout(timer));
  }
}
