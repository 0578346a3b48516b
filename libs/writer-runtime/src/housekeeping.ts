import type { Clock, HousekeepingReport, MessageHousekeeping } from '@qim/store-core';
import { PeriodicTask } from '@qim/service-kit';
import type { WriterMetrics } from './writer-metrics';

interface HousekeepingLogger {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface HousekeepingSettings {
  /** Pause between passes (ms). */
  readonly intervalMs: number;
  /** Most facts each kind of pass examines (the bound of one pass's work). */
  readonly batch: number;
  /** The time the store's expiries are compared with. */
  readonly clock: Clock;
}

/** The two passes of one round and what each did. */
export interface HousekeepingRound {
  readonly commitAux: HousekeepingReport;
  readonly expiredHistory: HousekeepingReport;
}

/**
 * One bounded round: `gcCommittedAuxiliary` then `gcExpiredHistory`, each examining at most
 * `batch` facts, counted in the metrics (examined, reclaimed, backlog left beyond the batch).
 */
export async function housekeepingRound(
  store: MessageHousekeeping,
  s: Omit<HousekeepingSettings, 'intervalMs'>,
  metrics: WriterMetrics,
  log: HousekeepingLogger,
): Promise<HousekeepingRound> {
  const now = s.clock.nowMs();
  const commitAux = await store.gcCommittedAuxiliary(now, s.batch);
  const expiredHistory = await store.gcExpiredHistory(now, s.batch);
  for (const [kind, r] of [
    ['commit_aux', commitAux],
    ['expired_history', expiredHistory],
  ] as const) {
    metrics.housekeepingExamined.inc({ kind }, r.examined);
    metrics.housekeepingReclaimed.inc({ kind }, r.reclaimed);
    metrics.housekeepingBacklog.set({ kind }, r.more ? 1 : 0);
  }
  if (commitAux.reclaimed + expiredHistory.reclaimed > 0 || commitAux.more || expiredHistory.more) {
    log.info({ commitAux, expiredHistory }, 'housekeeping round');
  }
  return { commitAux, expiredHistory };
}

/**
 * The writer's housekeeping loop: reclaims expired auxiliary commit facts and expired Ephemeral
 * history on a schedule, for stores that keep expired facts until told (`needsHousekeeping`).
 * Returns null (nothing to run) for stores whose server TTLs remove them. Not started.
 */
export function housekeepingLoop(store: MessageHousekeeping, s: HousekeepingSettings, metrics: WriterMetrics, log: HousekeepingLogger): PeriodicTask | null {
  if (!store.capabilities.needsHousekeeping) return null;
  return new PeriodicTask(
    async () => {
      await housekeepingRound(store, s, metrics, log);
    },
    { name: 'housekeeping', intervalMs: s.intervalMs, onError: (err) => log.error({ err }, 'housekeeping round failed') },
  );
}
