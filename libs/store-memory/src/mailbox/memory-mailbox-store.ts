import { InvalidInputError, UnavailableError, assertU64 } from '@qim/store-core';
import type {
  AppendReport,
  Clock,
  DispatchPage,
  Id128,
  MailboxEntryInput,
  MailboxGcConfig,
  MailboxStore,
  MailboxStoreCapabilities,
  PageReport,
  RangeScanPage,
  ShardEpoch,
  ShardFrontier,
} from '@qim/store-core';
import { appendEntries, raiseTrim, scanEntries } from './mailbox-entries';
import { applyPage, readFrontier } from './mailbox-page';
import type { MemoryMailboxFaults } from './mailbox-page';
import type { MailboxScope } from './mailbox-scope';
import { MemoryMailboxBackend } from './memory-mailbox-backend';

export interface MemoryMailboxStoreOptions {
  /** The shard (dispatch partition) and epoch this store serves. */
  readonly shardEpoch: ShardEpoch;
  /** Explicit retention and dedupe parameters. */
  readonly gc: MailboxGcConfig;
  /** Time source for every expiry decision (a `ManualClock` in tests). */
  readonly clock: Clock;
  /** Shared storage (several stores, also of one `ShardEpoch`, may open one); a fresh one when omitted. */
  readonly backend?: MemoryMailboxBackend;
  /** Simulated crash points of `applyPage` (contract tests only; production passes none). */
  readonly faults?: MemoryMailboxFaults;
}

function checkConfig(o: MemoryMailboxStoreOptions): void {
  const { shard, epoch } = o.shardEpoch;
  if (!Number.isInteger(shard) || shard < 0 || shard > 0xffff) throw new InvalidInputError(`shard must be 0…65535: ${shard}`);
  if (!Number.isInteger(epoch) || epoch < 0 || epoch > 0xffff) throw new InvalidInputError(`epoch must be 0…65535: ${epoch}`);
  assertU64(o.gc.entryRetentionMs, 'entryRetentionMs');
  assertU64(o.gc.dispatchDedupeMs, 'dispatchDedupeMs');
}

/**
 * The reference MailboxStore (ADR-0022): the V4 retention proof, the shard frontier (a max) and the
 * dispatch index (lowest offset wins, remembered until `createdAt + dispatchDedupeMs`) over
 * in-process tables that hold the same facts and encoded bytes as the Scylla schema. One entry's
 * steps run without interleaving; `applyPage` yields between its steps so concurrent stores of one
 * shard interleave like zombie workers.
 */
export class MemoryMailboxStore implements MailboxStore {
  readonly capabilities: MailboxStoreCapabilities = Object.freeze({ injectableClock: true });
  readonly shardEpoch: ShardEpoch;
  readonly backend: MemoryMailboxBackend;
  private readonly scope: MailboxScope;
  private readonly faults: MemoryMailboxFaults;
  private closed = false;

  constructor(options: MemoryMailboxStoreOptions) {
    checkConfig(options);
    this.shardEpoch = Object.freeze({ ...options.shardEpoch });
    this.backend = options.backend ?? new MemoryMailboxBackend();
    this.faults = Object.freeze({ ...options.faults });
    this.scope = Object.freeze({ backend: this.backend, shardEpoch: this.shardEpoch, gc: Object.freeze({ ...options.gc }), clock: options.clock });
  }

  async appendBatch(entries: readonly MailboxEntryInput[]): Promise<AppendReport> {
    return appendEntries(this.open(), entries);
  }

  async rangeScan(tenantId: Id128, userId: Id128, after: bigint, upTo: bigint, limit: number): Promise<RangeScanPage> {
    return scanEntries(this.open(), tenantId, userId, after, upTo, limit);
  }

  async truncateBefore(tenantId: Id128, userId: Id128, seq: bigint): Promise<void> {
    raiseTrim(this.open(), tenantId, userId, seq);
  }

  async applyPage(page: DispatchPage): Promise<PageReport> {
    return applyPage(this.open(), page, this.faults);
  }

  async frontier(): Promise<ShardFrontier> {
    return { offset: readFrontier(this.open()) };
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private open(): MailboxScope {
    if (this.closed) throw new UnavailableError('the MemoryMailboxStore is closed');
    return this.scope;
  }
}
