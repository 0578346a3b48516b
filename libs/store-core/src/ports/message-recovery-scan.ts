import type { CommitSnapshot } from '../model/message';

/** Finds the commits a crash or a failed publish left unfinished: what `RecoveryRunner` reads. */
export interface MessageRecoveryScan {
  /**
   * Complete RESERVED/RECORDED/OUTBOXED commits with `createdAt < cutoffMs`, oldest first, at most
   * `maxItems`, no duplicates; terminal and vanished commits are filtered out.
   */
  scanRecoverableCommits(cutoffMs: bigint, maxItems: number): Promise<CommitSnapshot[]>;
}
