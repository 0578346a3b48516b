import type { Clock, HousekeepingReport, MessageParts } from '@qim/store-core';
import type { MemoryCommitSteps } from './memory-commit-steps';
import { historyPage } from './memory-history';
import type { MemoryMessageBackend } from './memory-message-backend';
import type { MemoryOpenGate } from './memory-open-gate';
import { conversationSummaries } from './memory-summaries';
import { scanRecoverable } from './recovery-scan';

/** A table whose expired rows can be dropped physically. */
interface Sweepable {
  sweep(now: bigint, limit: number): { dropped: number; more: boolean };
}

/**
 * The capability ports of `MemoryMessageStore`: `commits` (checks the gate itself) and the recovery
 * scan, housekeeping and reads over the same tables. Every method is async and checks `gate` first,
 * so a closed store rejects with `UnavailableError` and any other failure is a rejection too.
 */
export function memoryMessageParts(backend: MemoryMessageBackend, clock: Clock, commits: MemoryCommitSteps, gate: MemoryOpenGate): MessageParts {
  /** At `min(nowMs, clock)`: the counted table's sweep is the report; its companions only add `more`. */
  const sweep = (nowMs: bigint, limit: number, counted: Sweepable, companions: readonly Sweepable[]): HousekeepingReport => {
    const clockNow = clock.nowMs();
    const now = nowMs < clockNow ? nowMs : clockNow;
    const r = counted.sweep(now, limit);
    let more = r.more;
    for (const t of companions) more = t.sweep(now, limit).more || more;
    return { examined: r.dropped, reclaimed: r.dropped, more };
  };
  return {
    commits,
    recovery: {
      async scanRecoverableCommits(cutoffMs, maxItems) {
        gate.check();
        return scanRecoverable(backend, clock.nowMs(), cutoffMs, maxItems, (key) => commits.load(key));
      },
    },
    housekeeping: {
      /** Counts commits: each reclaimed commit row takes its recovery rows and seq claim with it (not counted). */
      async gcCommittedAuxiliary(nowMs, limit) {
        gate.check();
        return sweep(nowMs, limit, backend.commits, [backend.recovery, backend.seqClaims]);
      },
      /** Counts messages: each reclaimed record takes its history index row with it (not counted). */
      async gcExpiredHistory(nowMs, limit) {
        gate.check();
        return sweep(nowMs, limit, backend.records, [backend.historyIndex]);
      },
    },
    reads: {
      async historyPage(authorizer, viewer, conversationId, query) {
        gate.check();
        return historyPage(backend, clock, authorizer, viewer, conversationId, query);
      },
      async conversationSummaries(viewer, queries) {
        gate.check();
        return conversationSummaries(backend, clock, viewer, queries);
      },
    },
  };
}
