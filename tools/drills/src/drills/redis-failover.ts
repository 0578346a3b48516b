import { rmSync } from 'node:fs';
import path from 'node:path';
import { NO_RETRY, QimClient, newId128 } from '@qim/client';
import { Redis } from 'ioredis';
import type { CheckResult } from '../checker/checker';
import type { Load } from '../checker/load';
import type { SendRecord } from '../checker/model';
import { workspaceRoot } from '../stack/bundles';
import type { Deployment } from '../stack/deployment';
import { DRILL_TOKEN } from '../stack/deployment';
import { infra, infraOk, parseExports } from '../stack/infra';
import type { Drill, DrillContext } from './drill';
import { checkWith, deploy, jitter, sleep } from './harness';
import { frontierKey, storedFrontier } from './shard-faults';
import { shapeOf } from './sizes';

/**
 * The redis-failover drills (issue 30, item 5): the services on a Redis Cluster of three primaries
 * and three replicas with `QIM_REDIS_MIN_REPLICA_ACKS=1` (ADR-0038), and mid-load `kill -9` of a
 * primary. The cluster promotes the primary's replica by itself (`cluster-node-timeout` 2 s); the
 * old primary is started again a moment later and rejoins as the replica of the promoted one.
 * With one replica per primary, the promoted primary has none until then, so every write that
 * waits for a replica on its slots is answered 503 until the old one is back: that is ADR-0038's
 * price, and what "sends flow again after …" measures.
 *
 * - `redis-failover` kills a primary holding data only (conversations, commit shards, mailbox
 *   buckets), neither the writer leases nor a shard frontier.
 * - `redis-failover-frontier` kills the primary holding the frontier key of a mailbox shard right
 *   after that shard applied a page (its stored frontier just moved): a frontier acknowledged only
 *   by the old primary would stall the shard with a gap (`FRONTIER_GAP`) once the promoted replica
 *   answers — `qim_shard_stalls_total` must stay 0. (In a fresh cluster the slots of both shard
 *   frontiers and of the writer leases lie on one primary, so this kill takes the leases too.)
 *
 * On top of the checker's invariants: the killed primary's replica was promoted and the old primary
 * rejoined as a replica; every writer process survived and holds its lease at the end, under writer
 * ids of its own (a lease lost while its primary had no replica is taken back by the same process,
 * never by another); no mailbox read or device was told CURSOR_EXPIRED; at least one send was
 * refused during the failover, and every such send was answered when repeated (identically: the
 * checker's rows). The cluster is the drill's own (nodes 17141–17146, state
 * `.infra/drills-redis-cluster`, created afresh each run and stopped at the end), never the shared one.
 */
const STATE_DIR = path.join(workspaceRoot, '.infra', 'drills-redis-cluster');
const CLUSTER_BASE = 17140;
const PRIVATE = { QIM_INFRA_STATE_DIR: STATE_DIR, QIM_INFRA_REDIS_CLUSTER_BASE: String(CLUSTER_BASE), QIM_INFRA_REDIS_CLUSTER_NODE_TIMEOUT: '2000' };
const PORTS = [1, 2, 3, 4, 5, 6].map((i) => CLUSTER_BASE + i);
/** Bound of the promotion of the killed primary's replica (ms). */
const PROMOTION_BOUND_MS = 30_000;
/** Bound of the wait for every conversation's steady acknowledged sends after a kill (ms). */
const FLOW_BOUND_MS = 90_000;
/** Acknowledged probes in a row that count as "sends flow" in a conversation. */
const FLOW_STREAK = 3;

type Variant = 'data' | 'frontier';

/** One node as `CLUSTER NODES` shows it. */
interface ClusterNode {
  readonly id: string;
  readonly port: number;
  readonly primary: boolean;
  readonly primaryId: string | null;
  readonly failing: boolean;
  readonly slots: readonly (readonly [number, number])[];
}

function nodeClient(port: number): Redis {
  const r = new Redis({
    host: '127.0.0.1',
    port,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 1_000,
    commandTimeout: 2_000,
    retryStrategy: () => null,
  });
  r.on('error', () => undefined);
  return r;
}

/** One command on node `port` with a connection of its own. */
async function onNode<T>(port: number, call: (r: Redis) => Promise<T>): Promise<T> {
  const r = nodeClient(port);
  try {
    await r.connect();
    return await call(r);
  } finally {
    r.disconnect();
  }
}

function parseNodes(text: string): ClusterNode[] {
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const f = line.trim().split(' ');
      const flags = f[2]!.split(',');
      const slots = f
        .slice(8)
        .filter((s) => !s.startsWith('['))
        .map((s) => {
          const [a, b] = s.split('-');
          return [Number(a), Number(b ?? a)] as const;
        });
      return {
        id: f[0]!,
        port: Number(f[1]!.split('@')[0]!.split(':')[1]),
        primary: flags.includes('master'),
        primaryId: f[3] === '-' ? null : f[3]!,
        failing: flags.some((x) => x === 'fail' || x === 'fail?'),
        slots,
      };
    });
}

/** The cluster as the first answering node (other than `skip`) sees it. */
async function clusterView(skip?: number): Promise<ClusterNode[]> {
  let last: unknown = null;
  for (const port of PORTS.filter((p) => p !== skip)) {
    try {
      return parseNodes(String(await onNode(port, (r) => r.cluster('NODES'))));
    } catch (e) {
      last = e;
    }
  }
  throw new Error(`no node of the private cluster answers CLUSTER NODES: ${String(last)}`);
}

const ownerOf = (nodes: readonly ClusterNode[], slot: number): ClusterNode | undefined =>
  nodes.find((n) => n.primary && !n.failing && n.slots.some(([a, b]) => slot >= a && slot <= b));

/** The slot of a hash tag, as the cluster computes it. */
const slotOf = (tag: string): Promise<number> => onNode(PORTS[0]!, async (r) => Number(await r.cluster('KEYSLOT', `qimdrill:{${tag}}:slot`)));

/** Waits until a live primary other than `victim` owns `slot` (the promotion); returns it. */
async function promoted(victim: number, slot: number): Promise<ClusterNode> {
  const deadline = Date.now() + PROMOTION_BOUND_MS;
  for (;;) {
    const owner = await clusterView(victim)
      .then((v) => ownerOf(v, slot))
      .catch(() => undefined);
    if (owner !== undefined && owner.port !== victim) return owner;
    if (Date.now() > deadline) throw new Error(`no replica of 127.0.0.1:${victim} was promoted within ${PROMOTION_BOUND_MS} ms`);
    await sleep(100);
  }
}

interface Flow {
  /** ms from the kill to the first of `FLOW_STREAK` acknowledged probes in a row, per conversation (null: not within the bound). */
  readonly perConversation: (number | null)[];
  readonly probes: number;
  readonly refused: Record<string, number>;
}

/**
 * From the kill on, one probe send after another (no client retries) into every conversation until
 * the old primary is back (`back()`) and `FLOW_STREAK` probes in a row were acknowledged. A probe
 * refused meanwhile is recorded like any failed send and repeated after the load.
 */
async function probeFlow(load: Load, since: number, back: () => boolean): Promise<Flow> {
  let probes = 0;
  const refused: Record<string, number> = {};
  const perConversation = await Promise.all(
    load.conversations.map(async (c) => {
      let streak = 0;
      let streakFrom = 0;
      while (Date.now() - since < FLOW_BOUND_MS) {
        const t = Date.now();
        const r = await load.probeSend(NO_RETRY, c);
        probes += 1;
        if (r.code === 'OK') {
          if (streak === 0) streakFrom = t;
          streak += 1;
          if (streak >= FLOW_STREAK && back()) return streakFrom - since;
        } else {
          streak = 0;
          refused[r.code] = (refused[r.code] ?? 0) + 1;
        }
        await sleep(200);
      }
      return null;
    }),
  );
  return { perConversation, probes, refused };
}

/** A metric of one service process summed over its labels (`/metrics`); NaN when it does not answer. */
async function metricAt(url: string, name: string): Promise<number> {
  try {
    const text = await (await fetch(`${url}/metrics`)).text();
    return [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'gm'))].reduce((sum, m) => sum + Number(m[1]), 0);
  } catch {
    return Number.NaN;
  }
}

interface WriterLease {
  readonly name: string;
  readonly running: boolean;
  readonly writerId: number | null;
  readonly held: number;
  readonly losses: number;
}

/** Each writer's lease once the cluster is whole again: waits (bounded) until every running writer holds it. */
async function writerLeases(d: Deployment): Promise<WriterLease[]> {
  const read = (): Promise<WriterLease[]> =>
    Promise.all(
      d.of('writer').map(async (w) => {
        const running = w.process?.running === true;
        const client = new QimClient({
          writerUrl: w.url,
          mailboxUrl: d.of('mailbox')[0]!.url,
          token: DRILL_TOKEN,
          tenantId: newId128(),
          userId: newId128(),
          timeoutMs: 5_000,
          retry: NO_RETRY,
        });
        const ready = running ? await client.readiness('writer').catch(() => null) : null;
        const detail = ready?.checks['writer-lease']?.detail as { writerId?: unknown } | undefined;
        return {
          name: w.name,
          running,
          writerId: typeof detail?.writerId === 'number' ? detail.writerId : null,
          held: await metricAt(w.url, 'qim_writer_lease_held'),
          losses: await metricAt(w.url, 'qim_writer_lease_losses_total'),
        };
      }),
    );
  const deadline = Date.now() + 30_000;
  let now = await read();
  while (!now.every((w) => !w.running || w.held === 1) && Date.now() < deadline) {
    await sleep(500);
    now = await read();
  }
  return now;
}

const leaseLine = (l: WriterLease): string =>
  `${l.name} ${l.running ? 'running' : 'EXITED'}, writer id ${l.writerId ?? '?'}, held ${l.held}, losses ${l.losses}`;

const leasesClean = (ls: readonly WriterLease[]): boolean =>
  ls.every((l) => l.running && l.held === 1 && l.writerId !== null) && new Set(ls.map((l) => l.writerId)).size === ls.length;

interface Kill {
  readonly at: number;
  readonly victim: number;
  readonly holds: string;
  /** The replica that took over, and when (ms after the kill). */
  readonly promotedPort: number;
  readonly promotedMs: number;
  /** ms after the kill when the old primary was started, and when the cluster was whole again. */
  readonly startedMs: number;
  readonly wholeMs: number;
  readonly rejoinedAsReplica: boolean;
  readonly flow: Flow;
  /** Frontier variant: the shard, its stored frontier read just before the kill, and on the promoted replica. */
  readonly frontier?: { shard: number; before: bigint; onPromoted: bigint };
}

const describeKill = (k: Kill, i: number): string => {
  const flows = k.flow.perConversation;
  const worst = flows.some((v) => v === null) ? `> ${FLOW_BOUND_MS / 1000} s` : `${(Math.max(...(flows as number[])) / 1000).toFixed(1)} s`;
  const refused =
    Object.entries(k.flow.refused)
      .map(([c, n]) => `${c} ${n}`)
      .join(', ') || 'none';
  const f = k.frontier
    ? `; shard ${k.frontier.shard}'s frontier ${k.frontier.before} on the old primary just before the kill, ` +
      `${k.frontier.onPromoted} on the promoted replica right after its promotion`
    : '';
  return (
    `kill ${i + 1} at ${Math.round(k.at * 100)} % of sends: primary 127.0.0.1:${k.victim} (${k.holds}); ` +
    `replica ${k.promotedPort} promoted after ${(k.promotedMs / 1000).toFixed(1)} s; ` +
    `old primary started at ${(k.startedMs / 1000).toFixed(1)} s, cluster whole at ${(k.wholeMs / 1000).toFixed(1)} s ` +
    `(rejoined as a replica: ${k.rejoinedAsReplica ? 'yes' : 'NO'}); ` +
    `sends flow again after ${worst} (per conversation: ${flows.map((v) => (v === null ? '—' : `${(v / 1000).toFixed(1)} s`)).join(', ')}; ` +
    `${k.flow.probes} probes without retries, refused: ${refused})${f}`
  );
};

/** Starts the private cluster afresh (its state of an earlier run removed); returns its seed nodes. */
async function privateClusterUp(ctx: DrillContext): Promise<string> {
  await infra(['down', 'redis-cluster'], PRIVATE);
  rmSync(path.join(STATE_DIR, 'redis-cluster'), { recursive: true, force: true });
  const up = await infraOk(['up', 'redis-cluster'], PRIVATE);
  const nodes = parseExports(up.stdout)['QIM_TEST_REDIS_CLUSTER_NODES'];
  if (!nodes) throw new Error('tools/infra/infra up redis-cluster printed no QIM_TEST_REDIS_CLUSTER_NODES');
  ctx.log(`private redis cluster (3 + 3, cluster-node-timeout 2000 ms) ready in ${(up.ms / 1000).toFixed(1)} s: ${nodes}`);
  return nodes;
}

/**
 * Waits until the stored frontier of shard 0 or 1 moves (a page was just applied; the shard is
 * applying): that shard, its frontier key, the port of the primary holding it and the new frontier.
 */
async function applyingShard(d: Deployment, load: Load): Promise<{ shard: number; key: string; port: number; frontier: bigint }> {
  const ns = d.env['QIM_REDIS_NAMESPACE']!;
  const epoch = d.env['QIM_MAILBOX_EPOCH']!;
  const view = await clusterView();
  const shards = await Promise.all(
    [0, 1].map(async (shard) => {
      const port = ownerOf(view, await slotOf(`sf:${shard}`))!.port;
      const conn = nodeClient(port);
      await conn.connect();
      return { shard, port, conn, key: null as string | null, last: null as bigint | null };
    }),
  );
  try {
    const deadline = Date.now() + 60_000;
    let lastSend = 0;
    while (Date.now() < deadline) {
      for (const s of shards) {
        // A shard that has applied nothing yet has no frontier key: looked for again on the next round.
        s.key ??= await frontierKey(s.conn, ns, s.shard, epoch).catch(() => null);
        if (s.key === null) continue;
        const f = await storedFrontier(s.conn, s.key);
        if (s.last !== null && f !== s.last) return { shard: s.shard, key: s.key, port: s.port, frontier: f };
        s.last = f;
      }
      if (Date.now() - lastSend > 1_000) {
        lastSend = Date.now();
        void load.probeSend();
      }
      await sleep(20);
    }
    throw new Error('no shard frontier moved within 60 s');
  } finally {
    for (const s of shards) s.conn.disconnect();
  }
}

/** The regular sends refused (503, transport) and answered later: on a retry of the client, a round of the load, or after it. */
const refusedThenAnswered = (sends: readonly SendRecord[]): SendRecord[] =>
  sends.filter((s) => s.errors.some((e) => ['UNAVAILABLE', 'TRANSPORT', 'TIMEOUT', 'NO_ANSWER'].includes(e)) && s.answers.length + s.resolution.length > 0);

function failoverDrill(name: string, variant: Variant, summary: string): Drill {
  return {
    name,
    summary,
    needs: 'redis',
    run: async (ctx) => {
      const kafka = ctx.infraEnv['QIM_KAFKA_BROKERS'];
      if (!kafka) throw new Error('QIM_KAFKA_BROKERS missing from tools/infra/infra env');
      const nodes = await privateClusterUp(ctx);
      // The lease lives 15 s as in production (the isolated env's 3 s is shorter than a failover):
      // renewals fail while the leases' primary has no replica, and the writer must keep its id.
      const env = {
        QIM_STORE_BACKEND: 'redis',
        QIM_REDIS_CLUSTER_NODES: nodes,
        QIM_REDIS_MIN_REPLICA_ACKS: '1',
        QIM_KAFKA_BROKERS: kafka,
        QIM_LEASE_TTL_MS: '15000',
      };
      const topo = ctx.size === 'short' ? { writers: 1, mailboxes: 1 } : { writers: 2, mailboxes: 2 };
      let d: Deployment | null = null;
      try {
        d = await deploy(ctx, env, topo);
        const dep = d;
        const times = ctx.size === 'short' ? [0.3] : [0.25, 0.6];
        const kills: Kill[] = [];
        let leases: WriterLease[] = [];
        let stallsTotal = 0;
        const seen: { load: Load | null } = { load: null };
        const [leaseSlot, sf0, sf1] = await Promise.all([slotOf('writers'), slotOf('sf:0'), slotOf('sf:1')]);
        const holds = (n: ClusterNode): string => {
          const marks: [number, string][] = [
            [leaseSlot, 'writer leases'],
            [sf0, 'shard 0 frontier'],
            [sf1, 'shard 1 frontier'],
          ];
          const what = marks.filter(([s]) => n.slots.some(([a, b]) => s >= a && s <= b)).map(([, w]) => w);
          return `slots ${n.slots.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(',')}${what.length > 0 ? `, ${what.join(', ')}` : ', data only'}`;
        };

        const oneKill = async (load: Load, at: number): Promise<Kill> => {
          await load.at(at);
          let victim: ClusterNode;
          let frontier: { shard: number; key: string; before: bigint } | undefined;
          if (variant === 'frontier') {
            const s = await applyingShard(dep, load);
            victim = (await clusterView()).find((n) => n.port === s.port)!;
            frontier = { shard: s.shard, key: s.key, before: s.frontier };
          } else {
            const view = await clusterView();
            const special = new Set([leaseSlot, sf0, sf1].map((s) => ownerOf(view, s)?.port));
            const eligible = view.filter((n) => n.primary && !n.failing && !special.has(n.port));
            if (eligible.length === 0) throw new Error('every primary holds the writer leases or a shard frontier');
            victim = eligible[Math.floor(Math.random() * eligible.length)]!;
          }
          const what = holds(victim);
          await infraOk(['redis-cluster-kill', String(victim.port)], PRIVATE);
          const killedAt = Date.now();
          ctx.log(`primary 127.0.0.1:${victim.port} killed (-9) at ${Math.round(at * 100)} % of sends (${what})`);
          let back = false;
          const flowing = probeFlow(load, killedAt, () => back);
          const newPrimary = await promoted(victim.port, victim.slots[0]![0]);
          const promotedMs = Date.now() - killedAt;
          ctx.log(`replica 127.0.0.1:${newPrimary.port} promoted ${promotedMs} ms after the kill`);
          const frontierKeyName = frontier?.key;
          const onPromoted = frontierKeyName === undefined ? undefined : await onNode(newPrimary.port, (r) => storedFrontier(r, frontierKeyName));
          await sleep(jitter(1_000, 3_000));
          const startedMs = Date.now() - killedAt;
          await infraOk(['redis-cluster-start', String(victim.port)], PRIVATE);
          back = true;
          const wholeMs = Date.now() - killedAt;
          const rejoined = (await clusterView()).find((n) => n.port === victim.port);
          const rejoinedAsReplica = rejoined !== undefined && !rejoined.primary && rejoined.primaryId === newPrimary.id;
          ctx.log(`old primary started ${startedMs} ms after the kill; cluster whole at ${wholeMs} ms (a replica of ${newPrimary.port}: ${rejoinedAsReplica})`);
          const flow = await flowing;
          const kill: Kill = {
            at,
            victim: victim.port,
            holds: what,
            promotedPort: newPrimary.port,
            promotedMs,
            startedMs,
            wholeMs,
            rejoinedAsReplica,
            flow,
            ...(frontier && onPromoted !== undefined ? { frontier: { shard: frontier.shard, before: frontier.before, onPromoted } } : {}),
          };
          ctx.log(describeKill(kill, kills.length));
          return kill;
        };

        const fault = async (load: Load): Promise<void> => {
          seen.load = load;
          for (const at of times) kills.push(await oneKill(load, at));
          leases = await writerLeases(dep);
          const stalls = await Promise.all(dep.of('mailbox').map((m) => metricAt(m.url, 'qim_shard_stalls_total')));
          stallsTotal = stalls.reduce((a, b) => a + b, 0);
        };
        const refusedAnswered = (): number => (seen.load === null ? 0 : refusedThenAnswered(seen.load.sends).length);
        const lines = (r: CheckResult): string[] => [
          ...kills.map(describeKill),
          `writer leases after the failover(s): ${leases.map(leaseLine).join('; ')} — ${leasesClean(leases) ? 'handed over cleanly' : 'NOT CLEAN'}`,
          `sends refused during the failover (503/transport) and answered when repeated: ${refusedAnswered()}`,
          `shard stalls with a frontier gap (qim_shard_stalls_total, every mailbox): ${stallsTotal}`,
          `CURSOR_EXPIRED: device resyncs ${r.counts.deviceResyncs}`,
        ];
        const { pass } = await checkWith(ctx, name, dep, shapeOf(ctx.size), fault, lines, (r) => {
          const expired = r.verdict.rows.find((row) => row.name.includes('CURSOR_EXPIRED'))?.checked ?? 0;
          return (
            kills.length === times.length &&
            kills.every((k) => k.rejoinedAsReplica && k.flow.perConversation.every((v) => v !== null)) &&
            leasesClean(leases) &&
            stallsTotal === 0 &&
            refusedAnswered() > 0 &&
            expired === 0 &&
            r.counts.deviceResyncs === 0
          );
        });
        return pass;
      } finally {
        await d?.down();
        await infra(['down', 'redis-cluster'], PRIVATE);
      }
    },
  };
}

export const redisFailover = failoverDrill(
  'redis-failover',
  'data',
  'Redis Cluster 3 + 3 (private, replica acks 1): kill -9 of a primary holding data only mid-load, replica promoted, old primary back as a replica',
);

export const redisFailoverFrontier = failoverDrill(
  'redis-failover-frontier',
  'frontier',
  'as redis-failover, killing the primary of a shard frontier right after that shard applied a page (and, there, the writer leases)',
);
