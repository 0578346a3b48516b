/** One consumed Kafka record. */
export interface ConsumedRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
  readonly key: Buffer | null;
  readonly value: Buffer;
}

/**
 * What a `PartitionConsumer` drives. Records of one partition are handled strictly one after
 * another, in offset order. The consumer commits, per partition, exactly what `committable`
 * says is proven — never the offset it merely read.
 */
export interface RecordHandler {
  /** Handles one record; throwing stops the batch (it is re-read later from the committed offset). */
  handle(record: ConsumedRecord): Promise<void>;
  /**
   * The next offset to read after a restart, proven safe for `partition` (Kafka commit semantics:
   * last proven offset + 1), or null when nothing is proven yet.
   */
  committable(partition: number): bigint | null;
  /** Partitions now assigned to this process (after a rebalance). */
  onAssigned?(partitions: readonly number[]): Promise<void> | void;
}
