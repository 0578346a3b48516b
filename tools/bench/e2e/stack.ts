import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';

async function ready(url: string): Promise<boolean> {
  try {
    // generous: a loaded box answers late, and a false "not ready" would start a second stack
    const r = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(10_000) });
    return r.ok;
  } catch {
    return false;
  }
}

export interface Stack {
  /** True when this run started the services (and should stop them unless told to keep them). */
  readonly started: boolean;
  readonly brokers: string[];
  readonly backend: string;
  /** The Redis the stack's store uses (redis backend only): its background saves are flagged per phase. */
  readonly redisUrl: string | null;
  stop(): void;
}

/**
 * Uses the writer and mailbox of `tools/scenario/qim-local` when both answer `/readyz`; otherwise
 * (unless `start` is false) runs `qim-local up`, which starts the servers, builds and starts both.
 */
export async function ensureStack(root: string, writerUrl: string, mailboxUrl: string, start: boolean): Promise<Stack> {
  const qimLocal = join(root, 'tools/scenario/qim-local');
  let started = false;
  if (!((await ready(writerUrl)) && (await ready(mailboxUrl)))) {
    if (!start) throw new Error(`writer ${writerUrl} or mailbox ${mailboxUrl} is not ready, and --no-start was given`);
    process.stderr.write('[e2e] stack not running: tools/scenario/qim-local up\n');
    const r = spawnSync(qimLocal, ['up'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    if (r.status !== 0) throw new Error(`tools/scenario/qim-local up failed (exit ${r.status})`);
    started = true;
    if (!((await ready(writerUrl)) && (await ready(mailboxUrl)))) throw new Error('qim-local up finished but the services are not ready');
  }
  const env = execFileSync(join(root, 'tools/infra/infra'), ['env'], { cwd: root }).toString();
  const brokers = process.env['QIM_KAFKA_BROKERS'] ?? /QIM_KAFKA_BROKERS=(\S+)/.exec(env)?.[1];
  if (!brokers) throw new Error('no Kafka address (QIM_KAFKA_BROKERS, tools/infra/infra env)');
  return {
    started,
    brokers: brokers.split(','),
    backend: process.env['QIM_STORE_BACKEND'] ?? 'redis',
    redisUrl: (process.env['QIM_STORE_BACKEND'] ?? 'redis') === 'redis' ? (process.env['QIM_REDIS_URL'] ?? /QIM_REDIS_URL=(\S+)/.exec(env)?.[1] ?? null) : null,
    stop: () => {
      spawnSync(qimLocal, ['down'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    },
  };
}
