import type { BusLogger, ConsumedRecord, PoisonHandler } from '@qim/bus';
import type { MailboxMetrics } from './mailbox-metrics';

/**
 * What happens to a record that cannot be decoded or fails validation: the dead-letter seam
 * (`onPoison`, awaited before the page goes on), then one count and one log line — once per record:
 * a page read again after a retry (a store error, a rebalance) neither dead-letters, counts nor logs
 * an offset already reported (per partition, offsets only grow within a process). A seam that fails
 * leaves the record unreported, so the retried page sends it again.
 */
export class PoisonReporter {
  private readonly reported = new Map<number, bigint>();

  constructor(
    private readonly role: 'router' | 'shard',
    private readonly metrics: MailboxMetrics,
    private readonly log: BusLogger,
    private readonly onPoison?: PoisonHandler,
  ) {}

  async report(record: ConsumedRecord, err: unknown): Promise<void> {
    const last = this.reported.get(record.partition);
    if (last !== undefined && record.offset <= last) return;
    await this.onPoison?.(record, err);
    this.reported.set(record.partition, record.offset);
    this.metrics.poisonRecords.inc({ role: this.role, partition: String(record.partition) });
    this.log.error(
      { topic: record.topic, partition: record.partition, offset: record.offset.toString(), bytes: record.value.length, err },
      `poison record skipped: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}
