import path from 'node:path';
import type { Load } from '../checker/load';
import { workspaceRoot } from '../stack/bundles';
import type { Deployment, Instance } from '../stack/deployment';
import { infraOk } from '../stack/infra';
import type { Drill, DrillContext } from './drill';
import { checkWith, deploy, jitter, sleep } from './harness';
import { shapeOf } from './sizes';

export function redisModeEnv(ctx: DrillContext): Record<string, string> {
  const need = (k: string): string => {
    const v = ctx.infraEnv[k];
    if (!v) throw new Error(`${k} missing from tools/infra/infra env`);
    return v;
  };
  return { QIM_STORE_BACKEND: 'redis', QIM_REDIS_URL: need('QIM_REDIS_URL'), QIM_KAFKA_BROKERS: need('QIM_KAFKA_BROKERS') };
}

async function withDeployment(
  ctx: DrillContext,
  env: Record<string, string>,
  topo: { writers: number; mailboxes: number },
  body: (d: Deployment) => Promise<boolean>,
): Promise<boolean> {
  const d = await deploy(ctx, env, topo);
  try {
    return await body(d);
  } finally {
    await d.down();
  }
}

/** Kills an instance with `signal`, waits `downMs`, starts it again on its port. Returns the outage in ms. */
async function bounce(ctx: DrillContext, d: Deployment, inst: Instance, signal: NodeJS.Signals, downMs: number): Promise<number> {
  const t0 = Date.now();
  const exit = await inst.process!.stop(signal);
  ctx.log(`${signal} ${inst.name} (exit ${JSON.stringify(exit)})`);
  await sleep(downMs);
  await d.start(inst);
  const ms = Date.now() - t0;
  ctx.log(`${inst.name} ready again after ${ms} ms`);
  return ms;
}

export const dualInstance: Drill = {
  name: 'dual-instance',
  summary: 'two writers racing the same conversations and client ids; two mailboxes on the same shards, forced rebalance mid-load',
  needs: 'redis',
  run: (ctx) =>
    withDeployment(ctx, redisModeEnv(ctx), { writers: 2, mailboxes: 2 }, async (d) => {
      const shape = shapeOf(ctx.size, { duplicateRate: 0.4 });
      const rebalances = ctx.size === 'short' ? [0.4] : [0.25, 0.5, 0.75];
      const fault = async (load: Load): Promise<void> => {
        for (const [k, at] of rebalances.entries()) {
          await load.at(at);
          await bounce(ctx, d, d.of('mailbox')[k % 2]!, 'SIGTERM', 1_000);
        }
      };
      const { pass } = await checkWith(ctx, 'dual-instance', d, shape, fault, () => [`forced rebalances ${rebalances.length} (mailbox SIGTERM + restart)`]);
      return pass;
    }),
};

/**
 * kill -9 of writer and mailbox processes mid-load on `env`'s backend (2 writers + 2 mailboxes),
 * each restarted on its port: short = writer-1 and mailbox-1 once; full = every process, 3 rounds,
 * random order and times. Shared by `kill9` (redis) and `kill9-scylla` (3-node cluster, RF 3).
 */
export function kill9Drill(ctx: DrillContext, env: Record<string, string>, name: string): Promise<boolean> {
  return withDeployment(ctx, env, { writers: 2, mailboxes: 2 }, async (d) => {
    const shape = shapeOf(ctx.size);
    const cycles = ctx.size === 'short' ? 1 : 3;
    const kills: string[] = [];
    const fault = async (load: Load): Promise<void> => {
      await load.at(0.2);
      for (let c = 0; c < cycles; c += 1) {
        const order = ctx.size === 'short' ? [d.of('writer')[0]!, d.of('mailbox')[0]!] : [...d.instances].sort(() => Math.random() - 0.5);
        for (const inst of order) {
          await sleep(jitter(200, ctx.size === 'short' ? 1_500 : 4_000));
          kills.push(`${inst.name} ${await bounce(ctx, d, inst, 'SIGKILL', jitter(0, 1_500))}ms`);
        }
      }
    };
    const { pass } = await checkWith(ctx, name, d, shape, fault, () => [`kill -9 (outage until ready): ${kills.join(', ')}`]);
    return pass;
  });
}

export const kill9: Drill = {
  name: 'kill9',
  summary: 'kill -9 of each writer and mailbox process at random points, repeatedly',
  needs: 'redis',
  run: (ctx) => kill9Drill(ctx, redisModeEnv(ctx), 'kill9'),
};

export const kafkaKill: Drill = {
  name: 'kafka-kill',
  summary: 'Kafka broker kill -9 and restart mid-load (the fault broker, never the shared one)',
  needs: 'redis',
  run: async (ctx) => {
    await infraOk(['kafka-fault', 'up']);
    const env = { ...redisModeEnv(ctx), QIM_KAFKA_BROKERS: '127.0.0.1:19192' };
    // The fault broker is the drill's own: stopped again whatever the outcome.
    return withDeployment(ctx, env, { writers: 1, mailboxes: 1 }, async (d) => {
      const shape = shapeOf(ctx.size);
      const times = ctx.size === 'short' ? [0.3] : [0.25, 0.6];
      const notes: string[] = [];
      const fault = async (load: Load): Promise<void> => {
        for (const at of times) {
          await load.at(at);
          await infraOk(['kafka-fault', 'kill']);
          ctx.log('kafka-fault broker killed (SIGKILL)');
          await sleep(jitter(1_000, 4_000));
          const r = await infraOk(['kafka-fault', 'restart']);
          notes.push(`broker kill -9 at ${Math.round(at * 100)}% of sends, restart ready in ${(r.ms / 1000).toFixed(1)} s`);
          ctx.log(notes.at(-1)!);
        }
      };
      const { pass } = await checkWith(ctx, 'kafka-kill', d, shape, fault, () => notes);
      return pass;
    }).finally(() => infraOk(['kafka-fault', 'down']));
  },
};

/** A private Redis for the restart drill (other engineers' tests use the shared one). */
const PRIVATE_REDIS = { QIM_INFRA_STATE_DIR: path.join(workspaceRoot, '.infra', 'drills-redis'), QIM_INFRA_REDIS_PORT: '16479' };

export const redisRestart: Drill = {
  name: 'redis-restart',
  summary: 'Redis kill -9 and restart on its append-only file mid-load (a private Redis on 16479)',
  needs: 'redis',
  run: async (ctx) => {
    await infraOk(['up', 'redis'], PRIVATE_REDIS);
    const env = { ...redisModeEnv(ctx), QIM_REDIS_URL: `redis://127.0.0.1:${PRIVATE_REDIS.QIM_INFRA_REDIS_PORT}` };
    return withDeployment(ctx, env, { writers: 1, mailboxes: 1 }, async (d) => {
      const shape = shapeOf(ctx.size);
      const times = ctx.size === 'short' ? [0.4] : [0.25, 0.6];
      const notes: string[] = [];
      const fault = async (load: Load): Promise<void> => {
        for (const at of times) {
          await load.at(at);
          await infraOk(['redis-kill'], PRIVATE_REDIS);
          await sleep(jitter(500, 2_500));
          const r = await infraOk(['redis-restart'], PRIVATE_REDIS);
          notes.push(`redis kill -9 at ${Math.round(at * 100)}% of sends, restarted on its AOF in ${(r.ms / 1000).toFixed(1)} s`);
          ctx.log(notes.at(-1)!);
        }
        await sleep(1_000);
        const gone = d.instances.filter((i) => !i.process?.running);
        for (const inst of gone) {
          notes.push(`${inst.name} exited after the Redis crash; restarted`);
          await d.start(inst);
        }
      };
      const { pass } = await checkWith(ctx, 'redis-restart', d, shape, fault, () => notes);
      return pass;
    }).finally(() => infraOk(['down', 'redis'], PRIVATE_REDIS));
  },
};
