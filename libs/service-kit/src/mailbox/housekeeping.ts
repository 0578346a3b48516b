import type { BusLogger } from '@qim/bus';
import type { MailboxConfig } from '../config/mailbox-config';
import { PeriodicTask } from '../lifecycle/periodic-task';
import type { ShardWorker } from './shard-worker';

/**
 * The mailbox's periodic bookkeeping on the shards this process owns: lane floors follow the
 * committed Kafka offset (never ahead of it), then `gcCompletedDispatches` reclaims completed
 * dispatches older than the cutoff (bounded per pass).
 */
export class Housekeeping {
  private readonly floors: PeriodicTask;
  private readonly gc: PeriodicTask;

  constructor(
    private readonly worker: ShardWorker,
    private readonly config: Pick<MailboxConfig, 'floorIntervalMs' | 'gc'>,
    private readonly log: BusLogger,
  ) {
    this.floors = new PeriodicTask(() => this.floorPass(), {
      name: 'floor',
      intervalMs: config.floorIntervalMs,
      onError: (err) => log.warn({ err }, 'floor pass failed'),
    });
    this.gc = new PeriodicTask(() => this.gcPass(), {
      name: 'gc',
      intervalMs: config.gc.intervalMs,
      onError: (err) => log.warn({ err }, 'gc pass failed'),
    });
  }

  start(): void {
    this.floors.start();
    this.gc.start();
  }

  /** Moves floors of every active shard up to its committed offset. */
  async floorPass(): Promise<void> {
    for (const p of this.worker.activeProcessors()) {
      const committed = this.worker.committedOf(p.shard);
      if (committed === null) continue;
      const moved = await p.advanceFloors(committed);
      if (moved > 0) this.log.info({ shard: p.shard, lanes: moved }, 'lane floors advanced');
    }
  }

  /** One bounded GC pass per active shard. */
  async gcPass(): Promise<void> {
    const cutoff = BigInt(Date.now() - this.config.gc.cutoffMs);
    for (const p of this.worker.activeProcessors()) {
      const r = await p.store.gcCompletedDispatches(cutoff, this.config.gc.batch);
      if (r.reclaimed > 0 || r.more) this.log.info({ shard: p.shard, ...r }, 'dispatch gc pass');
    }
  }

  async stop(): Promise<void> {
    await this.floors.stop();
    await this.gc.stop();
  }
}
