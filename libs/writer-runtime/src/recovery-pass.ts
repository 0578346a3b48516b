import type { RecoveryRunner } from '@qim/store-core';
import type { ServiceMetrics } from '@qim/service-kit';

interface PassLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** One recovery pass with its counts in metrics and the log (failures stay recoverable). */
export async function recoveryPass(runner: RecoveryRunner, metrics: ServiceMetrics, log: PassLogger): Promise<void> {
  const r = await runner.runOnce();
  if (r.examined === 0) return;
  metrics.recoveryActions.inc({ result: 'examined' }, r.examined);
  metrics.recoveryActions.inc({ result: 'completed' }, r.completed);
  metrics.recoveryActions.inc({ result: 'failed' }, r.failed);
  log.info({ examined: r.examined, completed: r.completed, failed: r.failed }, 'recovery pass');
  for (const f of r.failures) log.warn({ key: f.key, err: f.error }, 'commit not recovered yet');
}
