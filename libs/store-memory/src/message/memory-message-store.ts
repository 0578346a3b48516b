import { COMMIT_AUX_TTL_MS, JoinedMessageStore } from '@qim/store-core';
import type { Clock, MessageStoreCapabilities } from '@qim/store-core';
import { MemoryCommitSteps } from './memory-commit-steps';
import type { MemoryMessageFaults } from './memory-message-faults';
import { MemoryMessageBackend } from './memory-message-backend';
import { memoryMessageParts } from './memory-message-parts';
import { MemoryOpenGate } from './memory-open-gate';

export interface MemoryMessageStoreOptions {
  /** Time source for every expiry decision (a `ManualClock` in tests). */
  readonly clock: Clock;
  /** Shared storage; a fresh one when omitted. */
  readonly backend?: MemoryMessageBackend;
  /** Lifetime of auxiliary commit facts from the reserve (ms); default `COMMIT_AUX_TTL_MS`. */
  readonly commitAuxTtlMs?: bigint;
  /** Test seam: crash injection inside `reserve`/`putRecord`; production passes none. */
  readonly faults?: MemoryMessageFaults;
}

/**
 * The reference MessageStore: every rule of the contract, over in-process tables holding the same
 * encoded facts as the Scylla schema. Steps of one operation are separated by event-loop turns, so
 * concurrent calls interleave like network round trips; identical reserves adopt one seq claim, so
 * only a reserve abandoned midway leaves a seq hole (a seq is never reused). The port methods forward
 * to `memoryMessageParts` (`JoinedMessageStore`); after `close()` each rejects with `UnavailableError`.
 */
export class MemoryMessageStore extends JoinedMessageStore {
  readonly capabilities: MessageStoreCapabilities = Object.freeze({ injectableClock: true, needsHousekeeping: true });
  readonly backend: MemoryMessageBackend;
  readonly commitAuxTtlMs: bigint;
  private readonly gate: MemoryOpenGate;

  constructor(options: MemoryMessageStoreOptions) {
    const backend = options.backend ?? new MemoryMessageBackend();
    const commitAuxTtlMs = options.commitAuxTtlMs ?? COMMIT_AUX_TTL_MS;
    const gate = new MemoryOpenGate('MemoryMessageStore');
    const commits = new MemoryCommitSteps(backend, options.clock, commitAuxTtlMs, gate, options.faults);
    super(memoryMessageParts(backend, options.clock, commits, gate));
    this.backend = backend;
    this.commitAuxTtlMs = commitAuxTtlMs;
    this.gate = gate;
  }

  async close(): Promise<void> {
    this.gate.close();
  }
}
