import { COMMIT_AUX_TTL_MS, InvalidInputError, JoinedMessageStore } from '@qim/store-core';
import type { MessageStoreCapabilities } from '@qim/store-core';
import { RedisKeys } from '../keys/redis-keys';
import { RedisIo } from '../redis/redis-io';
import { releaseConnection, resolveGrace } from '../redis/store-options';
import type { RedisStoreOptions } from '../redis/store-options';
import { RedisCommitOps } from './redis-commit-ops';
import type { RedisMessageFaults } from './redis-message-faults';
import { RedisHistoryReads } from './redis-history-reads';
import { RedisMessageHousekeeping } from './redis-message-housekeeping';
import { RedisRecoveryScan } from './redis-recovery-scan';

export interface RedisMessageStoreOptions extends RedisStoreOptions {
  /** Lifetime of auxiliary commit facts from the reserve (ms). Production: 2 h (the default). */
  readonly commitAuxTtlMs?: bigint;
  /**
   * Group commit (ADR-0039, default on): the commit-path script calls of concurrent commits made in
   * one event-loop turn share one EVALSHA on a standalone server. Off: one EVALSHA per call (A/B).
   */
  readonly groupCommit?: boolean;
  /** Test seam: crash injection inside `reserve`/`putRecord` (`RedisMessageFaults`); production passes none. */
  readonly faults?: RedisMessageFaults;
}

/**
 * `MessageStore` over Redis: atomic Lua scripts per hash tag (see `RedisKeys`), the store-core
 * codecs' bytes as values, logical time from the injected clock. One part per capability port —
 * commit steps, recovery scan, housekeeping, reads — each implementing it; `JoinedMessageStore`
 * forwards every port method to its part, and this class adds the capabilities and `close`.
 */
export class RedisMessageStore extends JoinedMessageStore {
  readonly capabilities: MessageStoreCapabilities = Object.freeze({ injectableClock: true, needsHousekeeping: true });
  readonly io: RedisIo;
  readonly keys: RedisKeys;

  constructor(private readonly options: RedisMessageStoreOptions) {
    const io = new RedisIo(options.redis, {
      groupCommit: options.groupCommit ?? true,
      namespace: options.namespace,
      ...(options.replicaAcks === undefined ? {} : { replicaAcks: options.replicaAcks }),
    });
    const keys = new RedisKeys(options.namespace);
    const commitAuxTtlMs = options.commitAuxTtlMs ?? COMMIT_AUX_TTL_MS;
    if (commitAuxTtlMs < 1n) throw new InvalidInputError('commitAuxTtlMs must be positive');
    const commits = new RedisCommitOps({
      io,
      keys,
      clock: options.clock,
      commitAuxTtlMs,
      physicalGraceMs: resolveGrace(options),
      faults: options.faults,
    });
    super({
      commits,
      recovery: new RedisRecoveryScan(io, keys, options.clock, commits),
      housekeeping: new RedisMessageHousekeeping(io, keys),
      reads: new RedisHistoryReads(io, keys, options.clock),
    });
    this.io = io;
    this.keys = keys;
  }

  close(): Promise<void> {
    return releaseConnection(this.options);
  }
}
