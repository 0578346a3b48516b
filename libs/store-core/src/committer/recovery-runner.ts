import { InvalidInputError } from '../errors/domain-errors';
import type { CommitKey } from '../model/message';
import type { Clock } from '../ports/clock';
import type { MessageRecoveryScan } from '../ports/message-recovery-scan';
import type { DurableMessageCommitter } from './durable-message-committer';

/** Recovery settings (explicit; no defaults). */
export interface RecoveryOptions {
  /** Only commits created more than `graceMs` ago are recovered (leaves in-flight sends alone). ≥ 0. */
  readonly graceMs: bigint;
  /** Most commits examined per pass, integer ≥ 1. */
  readonly maxItems: number;
  readonly clock: Clock;
  /**
   * Optional per-commit claim taken before resuming (shares recovery between writer processes):
   * false → another process is resuming this commit; it is left out of this pass (not examined).
   */
  readonly claim?: (key: CommitKey) => Promise<boolean>;
}

/** One commit a pass could not finish (it stays recoverable for the next pass). */
export interface RecoveryFailure {
  readonly key: CommitKey;
  readonly error: unknown;
}

/** Counts of one recovery pass. `examined = completed + failed`. */
export interface RecoveryReport {
  readonly examined: number;
  readonly completed: number;
  readonly failed: number;
  readonly failures: readonly RecoveryFailure[];
}

/**
 * The writer's recovery loop body: finds commits left unfinished by a crash or a failed publish
 * (`scanRecoverableCommits(now − graceMs, maxItems)`) and resumes each, one after another, with the
 * committer. One commit failing never stops the pass and never throws: it is counted and collected.
 * Only the scan itself failing rejects `runOnce`.
 */
export class RecoveryRunner {
  constructor(
    private readonly store: MessageRecoveryScan,
    private readonly committer: DurableMessageCommitter,
    private readonly options: RecoveryOptions,
  ) {
    if (options.graceMs < 0n) throw new InvalidInputError('graceMs must be ≥ 0');
    if (!Number.isInteger(options.maxItems) || options.maxItems < 1) throw new InvalidInputError('maxItems must be an integer ≥ 1');
  }

  /** One bounded pass. */
  async runOnce(): Promise<RecoveryReport> {
    const now = this.options.clock.nowMs();
    const cutoff = now > this.options.graceMs ? now - this.options.graceMs : 0n;
    const snapshots = await this.store.scanRecoverableCommits(cutoff, this.options.maxItems);
    let completed = 0;
    const failures: RecoveryFailure[] = [];
    for (const snapshot of snapshots) {
      try {
        if (this.options.claim !== undefined && !(await this.options.claim(snapshot.intent.key))) continue;
        await this.committer.resume(snapshot);
        completed += 1;
      } catch (error) {
        failures.push({ key: snapshot.intent.key, error });
      }
    }
    return { examined: completed + failures.length, completed, failed: failures.length, failures };
  }
}
