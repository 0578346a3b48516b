import { readFileSync } from 'node:fs';
import path from 'node:path';
import { NO_RETRY, QimClient, QimApiError, newId128 } from '@qim/client';
import type { Load } from '../checker/load';
import { workspaceRoot } from '../stack/bundles';
import type { Deployment } from '../stack/deployment';
import { DRILL_TOKEN } from '../stack/deployment';
import { infraOk } from '../stack/infra';
import type { Drill, DrillContext } from './drill';
import { checkWith, deploy, sleep } from './harness';
import { redisModeEnv } from './redis-drills';
import { shapeOf } from './sizes';

/**
 * The redis-freeze drill (issue 28, item 5): a Redis that stops answering while its connections stay
 * open — SIGSTOP on the drill's own redis-server (never the shared one), as a server that silently
 * drops packets looks to its clients — for 30 s (short: 10 s) mid-load, then SIGCONT. Without
 * command timeouts nothing would notice before TCP gives up (~15 min). The criterion: during the
 * freeze a sync with `wait_ms` answers 503 within `wait_ms` + the mailbox's store bound (2 s) + 2 s
 * of slack; afterwards the same processes serve again (none exited, none restarted) and the checker
 * finds nothing lost, duplicated or skipped.
 */

/** The drill's own Redis (the restart drill's private one is another: the two may run side by side). */
const FREEZE_REDIS = { QIM_INFRA_STATE_DIR: path.join(workspaceRoot, '.infra', 'drills-redis-freeze'), QIM_INFRA_REDIS_PORT: '16480' };
const PROBE_WAIT_MS = 1_000;
const SYNC_STORE_BOUND_MS = 2_000;
const PROBE_SLACK_MS = 2_000;

/** The pid of the drill's redis-server, from the pid file `tools/infra` wrote; refuses any other process. */
function freezeRedisPid(): number {
  const pidFile = path.join(FREEZE_REDIS.QIM_INFRA_STATE_DIR, 'redis', 'redis.pid');
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  if (!Number.isInteger(pid) || !title.includes(`redis-server 127.0.0.1:${FREEZE_REDIS.QIM_INFRA_REDIS_PORT}`)) {
    throw new Error(`redis-freeze: pid ${pid} of ${pidFile} is not the drill's redis-server (${JSON.stringify(title)})`);
  }
  return pid;
}

interface Probe {
  readonly ms: number;
  readonly outcome: string;
}

/** One sync of a fresh user with `wait_ms`, no retries: how it ended and how long it took. */
async function probeSync(d: Deployment): Promise<Probe> {
  const client = new QimClient({
    writerUrl: d.of('writer')[0]!.url,
    mailboxUrl: d.of('mailbox')[0]!.url,
    token: DRILL_TOKEN,
    tenantId: newId128(),
    userId: newId128(),
    timeoutMs: 60_000,
    retry: NO_RETRY,
  });
  const t0 = Date.now();
  try {
    await client.syncPage({ waitMs: PROBE_WAIT_MS });
    return { ms: Date.now() - t0, outcome: '200' };
  } catch (err) {
    return {
      ms: Date.now() - t0,
      outcome: err instanceof QimApiError ? `${err.status} ${err.code}` : `error ${err instanceof Error ? err.message : String(err)}`,
    };
  }
}

export const redisFreeze: Drill = {
  name: 'redis-freeze',
  summary: 'Redis SIGSTOP for 30 s (short: 10 s) mid-load, then SIGCONT: bounded 503s, recovery without restarts (a private Redis on 16480)',
  needs: 'redis',
  run: async (ctx: DrillContext) => {
    await infraOk(['up', 'redis'], FREEZE_REDIS);
    const pid = freezeRedisPid();
    const env = { ...redisModeEnv(ctx), QIM_REDIS_URL: `redis://127.0.0.1:${FREEZE_REDIS.QIM_INFRA_REDIS_PORT}` };
    const frozenMs = ctx.size === 'short' ? 10_000 : 30_000;
    const at = ctx.size === 'short' ? 0.4 : 0.3;
    const notes: string[] = [];
    let probeOk = false;
    let noRestarts = false;
    let afterOk = false;
    const d = await deploy(ctx, env, { writers: 1, mailboxes: 1 });
    try {
      const fault = async (load: Load): Promise<void> => {
        await load.at(at);
        const t0 = Date.now();
        process.kill(pid, 'SIGSTOP');
        ctx.log(`redis-server (pid ${pid}) frozen (SIGSTOP) at ${Math.round(at * 100)}% of sends`);
        try {
          await sleep(1_000);
          const during = await probeSync(d);
          probeOk = during.outcome.startsWith('503') && during.ms <= PROBE_WAIT_MS + SYNC_STORE_BOUND_MS + PROBE_SLACK_MS;
          notes.push(
            `sync (wait_ms ${PROBE_WAIT_MS}) during the freeze: ${during.outcome} in ${during.ms} ms ` +
              `(bound ${PROBE_WAIT_MS + SYNC_STORE_BOUND_MS + PROBE_SLACK_MS} ms) ${probeOk ? 'ok' : 'FAILED'}`,
          );
          ctx.log(notes.at(-1)!);
          await sleep(Math.max(0, frozenMs - (Date.now() - t0)));
        } finally {
          process.kill(pid, 'SIGCONT');
        }
        notes.push(`redis frozen ${((Date.now() - t0) / 1000).toFixed(1)} s, then SIGCONT`);
        ctx.log(notes.at(-1)!);
        // Served again by the same processes: a sync answers 200 (the first ones may still meet the backlog).
        const resumed = Date.now();
        let after: Probe = { ms: 0, outcome: 'none' };
        while (Date.now() - resumed < 30_000) {
          after = await probeSync(d);
          if (after.outcome === '200') break;
          await sleep(500);
        }
        afterOk = after.outcome === '200';
        notes.push(`first 200 sync ${((Date.now() - resumed) / 1000).toFixed(1)} s after SIGCONT ${afterOk ? 'ok' : `FAILED (last: ${after.outcome})`}`);
        ctx.log(notes.at(-1)!);
      };
      const { pass } = await checkWith(
        ctx,
        'redis-freeze',
        d,
        shapeOf(ctx.size),
        fault,
        () => {
          const down = d.instances.filter((i) => !i.process?.running).map((i) => i.name);
          noRestarts = down.length === 0;
          return [...notes, `processes running after the freeze, none restarted: ${noRestarts ? 'yes' : `NO (${down.join(', ')} exited)`}`];
        },
        () => d.instances.every((i) => i.process?.running === true) && probeOk && afterOk,
      );
      return pass && noRestarts;
    } finally {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // already gone
      }
      await d.down();
      await infraOk(['down', 'redis'], FREEZE_REDIS);
    }
  },
};
