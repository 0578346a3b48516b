import type { CommitKey, RecoveryRunner } from '@qim/store-core';
import { commitKeyString } from '@qim/store-core';
import type { WriterMetrics } from './writer-metrics';

interface PassLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * Commits this process's recovery found it can never publish: the publisher refused the event as
 * larger than the topic's record limit (`FANOUT_LIMIT`, issue 28 item 11) — final while the limit
 * read at start-up holds. Such a commit is reported once (metric and error log) and left out of
 * every later pass of this process (`guard`), instead of being retried forever; a restart reads the
 * limit again and retries it once (after the topic's `max.message.bytes` was raised, it publishes).
 */
export class UnpublishableCommits {
  private readonly keys = new Set<string>();

  /** Wraps the recovery claim: a commit known unpublishable is not claimed, so the pass leaves it out. */
  guard(claim?: (key: CommitKey) => Promise<boolean>): (key: CommitKey) => Promise<boolean> {
    return async (key) => !this.keys.has(commitKeyString(key)) && (claim === undefined || (await claim(key)));
  }

  /** Records `key`; true the first time. */
  add(key: CommitKey): boolean {
    const k = commitKeyString(key);
    if (this.keys.has(k)) return false;
    this.keys.add(k);
    return true;
  }

  get size(): number {
    return this.keys.size;
  }
}

const isUnpublishable = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === 'FANOUT_LIMIT';

/**
 * One recovery pass with its counts in metrics and the log. Failures stay recoverable, except a
 * commit whose event the topic can never take: counted as `unpublishable`, logged at error level
 * once, and skipped by later passes (`UnpublishableCommits`).
 */
export async function recoveryPass(runner: RecoveryRunner, metrics: WriterMetrics, log: PassLogger, unpublishable?: UnpublishableCommits): Promise<void> {
  const r = await runner.runOnce();
  if (r.examined === 0) return;
  metrics.recoveryActions.inc({ result: 'examined' }, r.examined);
  metrics.recoveryActions.inc({ result: 'completed' }, r.completed);
  metrics.recoveryActions.inc({ result: 'failed' }, r.failed);
  log.info({ examined: r.examined, completed: r.completed, failed: r.failed }, 'recovery pass');
  for (const f of r.failures) {
    if (unpublishable !== undefined && isUnpublishable(f.error)) {
      if (unpublishable.add(f.key)) {
        metrics.recoveryActions.inc({ result: 'unpublishable' });
        log.error(
          { key: f.key, err: f.error },
          'commit can never be published (its event exceeds the messages topic record limit): left out of recovery until restart; ' +
            'raise the topic max.message.bytes, then restart a writer',
        );
      }
      continue;
    }
    log.warn({ key: f.key, err: f.error }, 'commit not recovered yet');
  }
}
