import type { BusLogger, ConsumedRecord, PoisonHandler } from '@qim/bus';
import type { ServiceMetrics } from '@qim/service-kit';

/**
 * What happens to a record that cannot be decoded or fails validation: the dead-letter seam
 * (`onPoison`, awaited before the page goes on), then one count and one log line per record —
 * a page read again after a retry or restart does not count or log the same offset twice
 * (per partition, offsets only grow within a process).
 */
export class PoisonReporter {
  private readonly reported = new Map<number, bigint>();

  constructor(
    private readonly role: 'router' | 'shard',
    private readonly metrics: ServiceMetrics,
    private readonly log: BusLogger,
    private readonly onPoison?: PoisonHandler,
  ) {}

  async report(record: ConsumedRecord, err: unknown): Promise<void> {
    await this.onPoison?.(record, err);
    const last = this.reported.get(record.partition);
    if (last !== undefined && record.offset <= last) return;
    this.reported.set(record.partition, record.offset);
    this.metrics.poisonRecords.inc({ role: this.role, partition: String(record.partition) });
    this.log.error(
      { topic: record.topic, partition: record.partition, offset: record.offset.toString(), bytes: record.value.length, err },
      `poison record skipped: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}
