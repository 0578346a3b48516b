import type { GroupOffsetsReader } from '@qim/bus';
import type { MailboxStore } from '@qim/store-core';
import { InvalidInputError, seqForWatermark } from '@qim/store-core';
import type { ShardWorker } from './shard-worker';

type RetryView = ReadonlyMap<number, { readonly attempts: number; readonly error: string; readonly retryAt: number }>;

export interface ShardStatusSources {
  readonly storeFor: (shard: number) => Promise<MailboxStore>;
  readonly worker: ShardWorker;
  /** Kafka group offsets (null: no Kafka, e.g. in-process tests). */
  readonly offsets: Pick<GroupOffsetsReader, 'offsets'> | null;
  /** The shard consumer's paused partitions (failed pages waiting for their retry). */
  readonly retrying: () => RetryView;
  readonly config: { readonly shards: number; readonly epoch: number; readonly shardGroup: string; readonly dispatchTopic: string };
}

const str = (v: bigint | null | undefined): string | null => (v === null || v === undefined ? null : v.toString());

/**
 * Operator view of one shard: the frontier (and the mailbox seq it makes visible), the group's
 * committed offset and the partition's end offset (lag = end − committed; records not yet applied =
 * end − 1 − frontier), and, when this process owns it, a stall with its offset, a refusal (store and
 * Kafka disagree: the reason and the command that resolves it) and the retry state.
 */
export class ShardStatusReader {
  constructor(private readonly s: ShardStatusSources) {}

  async status(shard: number): Promise<object> {
    const { config } = this.s;
    if (!Number.isInteger(shard) || shard < 0 || shard >= config.shards) {
      throw new InvalidInputError(`shard must be 0…${config.shards - 1}`);
    }
    const { offset: frontier } = await (await this.s.storeFor(shard)).frontier();
    let kafka: object | null = null;
    if (this.s.offsets) {
      const p = (await this.s.offsets.offsets(config.shardGroup, config.dispatchTopic)).find((x) => x.partition === shard);
      if (p) {
        kafka = {
          committed: str(p.committed),
          low: p.low.toString(),
          end: p.end.toString(),
          lag: (p.end - (p.committed ?? 0n)).toString(),
          unapplied: (p.end - 1n - (frontier ?? -1n)).toString(),
        };
      }
    }
    const state = this.s.worker.stateOf(shard);
    const retry = this.s.retrying().get(shard);
    return {
      shard,
      epoch: config.epoch,
      assigned_here: this.s.worker.assignment().includes(shard),
      checked: this.s.worker.checkEnded(shard),
      frontier: str(frontier),
      visible_up_to: seqForWatermark(config.epoch, frontier).toString(),
      kafka,
      stalled: state.stall
        ? {
            since: new Date(state.stall.since).toISOString(),
            page_from_offset: state.stall.pageFromOffset.toString(),
            reason: state.stall.reason,
            attempts: state.stall.attempts,
          }
        : null,
      refused: state.refusal
        ? { kind: state.refusal.kind, since: new Date(state.refusal.since).toISOString(), reason: state.refusal.reason, resolve: state.refusal.resolve }
        : null,
      retry: retry ? { attempts: retry.attempts, error: retry.error, retry_at: new Date(retry.retryAt).toISOString() } : null,
      pages_applied: state.pagesApplied,
      last_error: state.lastError,
    };
  }
}
