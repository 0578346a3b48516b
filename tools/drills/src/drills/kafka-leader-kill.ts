import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { NO_RETRY } from '@qim/client';
import { Kafka, logLevel } from 'kafkajs';
import type { Load } from '../checker/load';
import { workspaceRoot } from '../stack/bundles';
import type { Deployment } from '../stack/deployment';
import { infra, infraOk } from '../stack/infra';
import type { Drill, DrillContext } from './drill';
import { checkWith, deploy, jitter, sleep } from './harness';
import { shapeOf } from './sizes';

/**
 * The kafka-leader-kill drill (issue 30, item 6): the services run with their production checks
 * (`QIM_ENV=production`: topics verified to have 3 replicas and `min.insync.replicas` 2, Redis with
 * `appendfsync always`) on a three-broker KRaft cluster of the drill's own, and mid-load the broker
 * that leads a partition of the messages topic and one of the dispatch topic is killed with -9.
 * Right after the kill every conversation gets one probe send after another (no client retries)
 * until one is acknowledged: the time from the kill to that ACK is "sends flow again", printed per
 * conversation. Then the broker is started again (it rejoins every ISR before the load goes on).
 *
 * The cluster is private (state `.infra/drills-kafka3`, brokers 19401–19403, controllers
 * 19411–19413), so the shared `kafka3` of other work is never touched; so is its Redis (16481). The
 * cluster keeps its log dirs between runs (a restart is about half a fresh start); each run deletes
 * its own topics at the end.
 */
const STATE_DIR = path.join(workspaceRoot, '.infra', 'drills-kafka3');
const PRIVATE = {
  QIM_INFRA_STATE_DIR: STATE_DIR,
  QIM_INFRA_REDIS_PORT: '16481',
  QIM_INFRA_REDIS_APPENDFSYNC: 'always',
  QIM_INFRA_KAFKA3_BROKER_BASE: '19400',
  QIM_INFRA_KAFKA3_CONTROLLER_BASE: '19410',
};
const BROKERS = [1, 2, 3].map((n) => `127.0.0.1:${19400 + n}`);
/** Bound of the wait for every conversation's first acknowledged send after a kill (ms). */
const FLOW_BOUND_MS = 60_000;

type Led = { messages: number[]; dispatch: number[] };

/** Partition leaders of the two topics, by broker node id. */
async function leadersOf(kafka: Kafka, messages: string, dispatch: string): Promise<Map<number, Led>> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const meta = await admin.fetchTopicMetadata({ topics: [messages, dispatch] });
    const out = new Map<number, Led>([1, 2, 3].map((n) => [n, { messages: [], dispatch: [] }]));
    for (const t of meta.topics) {
      for (const p of t.partitions) out.get(p.leader)?.[t.name === messages ? 'messages' : 'dispatch'].push(p.partitionId);
    }
    return out;
  } finally {
    await admin.disconnect();
  }
}

const describeLed = (l: Led): string => `messages [${l.messages.join(',')}], dispatch [${l.dispatch.join(',')}]`;

/** The broker leading partitions of both topics (the most partitions among those). */
function victimOf(leaders: Map<number, Led>): number {
  const score = (l: Led): number => (l.messages.length > 0 ? 100 : 0) + (l.dispatch.length > 0 ? 100 : 0) + l.messages.length + l.dispatch.length;
  return [...leaders.entries()].sort((a, b) => score(b[1]) - score(a[1]))[0]![0];
}

/** Per conversation: ms from `since` to the first acknowledged probe send (no client retries), or null past the bound. */
function flowAgain(load: Load, since: number): Promise<(number | null)[]> {
  return Promise.all(
    load.conversations.map(async (c) => {
      while (Date.now() - since < FLOW_BOUND_MS) {
        if ((await load.probeSend(NO_RETRY, c)).code === 'OK') return Date.now() - since;
        await sleep(200);
      }
      return null;
    }),
  );
}

interface Round {
  victim: number;
  led: Led;
  flowMs: (number | null)[];
  movedTo: string;
  restartMs: number;
}

/**
 * The Kafka classpath the shared state dir already resolved (Maven), copied into the private one:
 * `tools/infra` re-checks every jar of it and resolves again if one is missing.
 */
function reuseClasspath(): void {
  const from = path.join(process.env['QIM_INFRA_STATE_DIR'] ?? path.join(workspaceRoot, '.infra'), 'classpath');
  const to = path.join(STATE_DIR, 'classpath');
  if (existsSync(path.join(to, 'kafka.txt')) || !existsSync(path.join(from, 'kafka.txt'))) return;
  mkdirSync(to, { recursive: true });
  for (const f of ['kafka.txt', 'kafka.pom.sha256']) if (existsSync(path.join(from, f))) copyFileSync(path.join(from, f), path.join(to, f));
}

/** Brings the private Redis and cluster up; a failed start is stopped and tried once more on fresh log dirs. */
async function privateInfraUp(ctx: DrillContext): Promise<void> {
  reuseClasspath();
  const first = await infra(['up', 'redis', 'kafka3'], PRIVATE);
  if (first.code === 0) {
    ctx.log(`private redis + kafka3 ready in ${(first.ms / 1000).toFixed(1)} s`);
    return;
  }
  ctx.log(`private kafka3 start failed (${(first.ms / 1000).toFixed(1)} s):\n${first.stderr.split('\n').slice(-15).join('\n')}`);
  ctx.log('stopping it and starting on fresh log dirs');
  await infra(['down', 'kafka3'], PRIVATE);
  rmSync(path.join(STATE_DIR, 'kafka3'), { recursive: true, force: true });
  const second = await infraOk(['up', 'redis', 'kafka3'], PRIVATE);
  ctx.log(`private redis + kafka3 ready in ${(second.ms / 1000).toFixed(1)} s (second attempt)`);
}

async function deleteRunTopics(d: Deployment): Promise<void> {
  const admin = new Kafka({ clientId: `qimdrill-${d.run}-cleanup`, brokers: BROKERS, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const mine = (await admin.listTopics()).filter((t) => t.startsWith(`qimdrill.${d.run}.`));
    if (mine.length > 0) await admin.deleteTopics({ topics: mine, timeout: 30_000 });
  } finally {
    await admin.disconnect();
  }
}

export const kafkaLeaderKill: Drill = {
  name: 'kafka-leader-kill',
  summary: 'three-broker Kafka (RF 3, min ISR 2, production checks): kill -9 of the leader of messages and dispatch partitions mid-load, restart',
  needs: 'redis',
  run: async (ctx) => {
    await privateInfraUp(ctx);
    const env = {
      QIM_ENV: 'production',
      QIM_STORE_BACKEND: 'redis',
      QIM_REDIS_URL: `redis://127.0.0.1:${PRIVATE.QIM_INFRA_REDIS_PORT}`,
      QIM_KAFKA_BROKERS: BROKERS.join(','),
      QIM_KAFKA_REPLICATION: '3',
    };
    const topo = ctx.size === 'short' ? { writers: 1, mailboxes: 1 } : { writers: 2, mailboxes: 2 };
    let d: Deployment | null = null;
    try {
      d = await deploy(ctx, env, topo);
      const dep = d;
      const kafka = new Kafka({ clientId: `qimdrill-${dep.run}-observer`, brokers: BROKERS, logLevel: logLevel.NOTHING });
      const messages = dep.env['QIM_TOPIC_MESSAGES']!;
      const dispatch = dep.env['QIM_TOPIC_DISPATCH']!;
      const shape = shapeOf(ctx.size);
      const times = ctx.size === 'short' ? [0.3] : [0.25, 0.6];
      const rounds: Round[] = [];
      const fault = async (load: Load): Promise<void> => {
        for (const at of times) {
          await load.at(at);
          const before = await leadersOf(kafka, messages, dispatch);
          const victim = victimOf(before);
          const led = before.get(victim)!;
          await infraOk(['kafka3-kill', String(victim)], PRIVATE);
          const killedAt = Date.now();
          ctx.log(`broker ${victim} killed (-9) at ${Math.round(at * 100)} % of sends; it led ${describeLed(led)}`);
          const flowMs = await flowAgain(load, killedAt);
          const after = await leadersOf(kafka, messages, dispatch);
          const movedTo = [...after.entries()]
            .filter(([, l]) => l.messages.length + l.dispatch.length > 0)
            .map(([n, l]) => `${n}: ${describeLed(l)}`)
            .join('; ');
          ctx.log(`sends flow again (ms after the kill, per conversation): ${flowMs.join(', ')}; leaders now ${movedTo}`);
          await sleep(Math.max(0, jitter(6_000, 10_000) - (Date.now() - killedAt)));
          const r = await infraOk(['kafka3-start', String(victim)], PRIVATE);
          ctx.log(`broker ${victim} back and every partition in sync ${(r.ms / 1000).toFixed(1)} s after its start`);
          rounds.push({ victim, led, flowMs, movedTo, restartMs: r.ms });
        }
      };
      const ledBoth = (): boolean => rounds.some((r) => r.led.messages.length > 0) && rounds.some((r) => r.led.dispatch.length > 0);
      const flowed = (): boolean => rounds.length === times.length && rounds.every((r) => r.flowMs.every((ms) => ms !== null));
      const lines = (): string[] => [
        ...rounds.map((r, i) => {
          const ms = r.flowMs.map((v) => (v === null ? `> ${FLOW_BOUND_MS / 1000} s` : `${(v / 1000).toFixed(1)} s`));
          const worst = r.flowMs.some((v) => v === null) ? `> ${FLOW_BOUND_MS / 1000} s` : `${(Math.max(...(r.flowMs as number[])) / 1000).toFixed(1)} s`;
          return (
            `kill ${i + 1}: broker ${r.victim} (led ${describeLed(r.led)}); sends flow again after ${worst} (per conversation: ${ms.join(', ')}); ` +
            `leaders then ${r.movedTo}; restart in sync after ${(r.restartMs / 1000).toFixed(1)} s`
          );
        }),
        `killed broker led a messages and a dispatch partition: ${ledBoth() ? 'yes' : 'NO'}`,
      ];
      const { pass } = await checkWith(ctx, 'kafka-leader-kill', dep, shape, fault, lines, () => ledBoth() && flowed());
      return pass;
    } finally {
      await d?.down();
      if (d) await deleteRunTopics(d).catch((err: unknown) => ctx.log(`deleting the run's topics failed: ${String(err)}`));
      await infra(['down', 'redis', 'kafka3'], PRIVATE);
    }
  },
};
