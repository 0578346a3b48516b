/** One consumed Kafka record. */
export interface ConsumedRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
  readonly key: Buffer | null;
  readonly value: Buffer;
  /** The record's Kafka timestamp (ms; the producer's create time unless the topic says log-append time); absent when unknown. */
  readonly timestamp?: number;
  /** The record's headers as the broker returned them (absent: none). */
  readonly headers?: Readonly<Record<string, Buffer>>;
}

/**
 * A run of records of one partition as the broker returned them, in offset order:
 * `[fromOffset, toOffset]` are the offsets of its first and last record. Records of one fetched batch
 * are consecutive in the log; an offset of the range without a record (a control record) carries nothing.
 */
export interface ConsumedPage {
  readonly topic: string;
  readonly partition: number;
  readonly fromOffset: bigint;
  readonly toOffset: bigint;
  /** Non-empty, strictly ascending offsets inside the range. */
  readonly records: readonly ConsumedRecord[];
}

/**
 * The dead-letter seam: receives a record that cannot be decoded or fails validation, with the reason.
 * The page it belongs to goes on without it only after this resolves; throwing stops the page (it is
 * read again later), so a sink that keeps the record must resolve only once it is safely kept.
 */
export type PoisonHandler = (record: ConsumedRecord, error: unknown) => Promise<void>;

/**
 * What a `PartitionConsumer` drives. Pages of one partition are handled strictly one after another,
 * in offset order; pages of different partitions may run concurrently.
 */
export interface PageHandler {
  /**
   * Handles one page. Resolving means every record of the page is done for good: the consumer then
   * commits `toOffset + 1`. Throwing commits nothing: the partition pauses and the same page is read
   * again after a backoff (never skipped). Must be idempotent: a page may be handled again after a
   * crash or a rebalance.
   */
  handlePage(page: ConsumedPage): Promise<void>;
  /** Partitions now assigned to this process (after a rebalance). */
  onAssigned?(partitions: readonly number[]): Promise<void> | void;
  /**
   * This process consumes none of its partitions any more, until the next `onAssigned`: the consumer
   * crashed (kafkajs may restart it and join again), is rejoining a rebalancing group, or stopped.
   * Called at once, while another member may already own those partitions; `reason` says why.
   */
  onRevoked?(reason: string): void;
}
