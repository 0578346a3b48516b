import type { BusLogger, ConsumedPage, DispatchProducer, PageHandler, PoisonHandler } from '@qim/bus';
import type { DispatchRecord } from '@qim/store-core';
import { decodeMessageEvent } from '@qim/store-core';
import type { MailboxMetrics } from './mailbox-metrics';
import { PoisonReporter } from './poison-reporter';
import { dispatchRecordsOf } from './router-plan';
import { ShardPlacements } from './shard-placements';

export interface MessageRouterOptions {
  readonly producer: Pick<DispatchProducer, 'send'>;
  readonly shardCount: number;
  readonly metrics: MailboxMetrics;
  readonly log: BusLogger;
  /** Dead-letter seam for undecodable message events (default: count and log only). */
  readonly onPoison?: PoisonHandler;
  readonly now?: () => number;
}

/**
 * The messages-topic `PageHandler`: every message event of a page becomes one `DispatchRecord` per
 * recipient shard; all of them go out in ONE produce call (partition = shard), and the page's offset
 * is committed by the consumer only after that produce was acknowledged. A crash in between
 * re-publishes the same dispatch ids later; the shard worker recognises them as duplicates.
 */
export class MessageRouter implements PageHandler {
  private readonly poison: PoisonReporter;
  private readonly placements: ShardPlacements;
  private readonly now: () => number;

  constructor(private readonly opts: MessageRouterOptions) {
    this.poison = new PoisonReporter('router', opts.metrics, opts.log, opts.onPoison);
    this.placements = new ShardPlacements(opts.shardCount);
    this.now = opts.now ?? Date.now;
  }

  async handlePage(page: ConsumedPage): Promise<void> {
    const dispatches: DispatchRecord[] = [];
    const createdAt: number[] = [];
    for (const r of page.records) {
      let event;
      try {
        event = decodeMessageEvent(r.value);
      } catch (err) {
        await this.poison.report(r, err);
        continue;
      }
      dispatches.push(...dispatchRecordsOf(event, this.placements));
      createdAt.push(Number(event.record.createdAt));
    }
    await this.opts.producer.send(dispatches);
    const m = this.opts.metrics;
    m.routedDispatches.inc(dispatches.length);
    const now = this.now();
    for (const t of createdAt) m.deliveryStageSeconds.observe({ stage: 'routed' }, Math.max(0, (now - t) / 1000));
  }
}
