import type { DrillContext } from './drills/drill';
import { redisModeEnv } from './drills/redis-drills';
import { freshKeyspace, scyllaModeEnv } from './drills/scylla-drills';
import { DRILL_TOKEN, Deployment } from './stack/deployment';

/** Where `serve` runs the services: the shared Redis, the single-node Cassandra, or the 3-node cluster (RF 3). */
export type ServeMode = 'redis' | 'scylla' | 'scylla3';

const DRILL_TIMINGS = ['QIM_LEASE_TTL_MS', 'QIM_SEND_DEADLINE_MS', 'QIM_RECOVERY_GRACE_MS', 'QIM_RECOVERY_INTERVAL_MS'] as const;

export const SERVE_MODES: readonly ServeMode[] = ['redis', 'scylla', 'scylla3'];

function envOf(ctx: DrillContext, mode: ServeMode): Record<string, string> {
  if (mode === 'redis') return redisModeEnv(ctx);
  if (mode === 'scylla3') return scyllaModeEnv(ctx, freshKeyspace('serve'));
  // The single-node Cassandra with the very same service settings (RF 1: QIM_ENV=test allows it).
  const e = ctx.infraEnv;
  if (!e['QIM_TEST_SCYLLA_ADDR']) throw new Error('QIM_TEST_SCYLLA_ADDR missing from tools/infra/infra env');
  return {
    ...scyllaModeEnv(
      {
        ...ctx,
        infraEnv: {
          ...e,
          QIM_TEST_SCYLLA3_ADDRS: e['QIM_TEST_SCYLLA_ADDR'],
          QIM_TEST_SCYLLA3_DC: e['QIM_TEST_SCYLLA_DC'] ?? '',
          QIM_TEST_SCYLLA3_RF: e['QIM_TEST_SCYLLA_RF'] ?? '',
        },
      },
      freshKeyspace('serve1'),
    ),
  };
}

/**
 * `tools/drills/run serve <mode>`: one writer and one mailbox of a drill deployment (own namespace,
 * topics and keyspace) on fixed ports (`QIM_DRILLS_SERVE_PORTS`, default 18180,18181), kept running
 * until SIGINT/SIGTERM. Prints the variables the end-to-end benchmark reads (`tools/bench/e2e`
 * with `--no-start`), so it can measure the services on the 3-node cluster. `QIM_ADMISSION_*` variables
 * of its own environment are passed on to the services. With `QIM_DRILLS_SERVE_REPLICAS=N` it runs
 * N writers and N mailboxes (the others on free ports; all listed in `WRITER_URLS` / `MAILBOX_URLS`,
 * read by `tools/bench/replicas.ts`). In redis mode `QIM_REDIS_CLUSTER_NODES` (and `QIM_REDIS_MIN_REPLICA_ACKS`)
 * of its own environment put the services on a Redis Cluster instead of the standalone server.
 */
export async function serve(ctx: DrillContext, mode: ServeMode): Promise<number> {
  const [wp, mp] = (process.env['QIM_DRILLS_SERVE_PORTS'] ?? '18180,18181').split(',').map(Number);
  if (!Number.isInteger(wp) || !Number.isInteger(mp)) throw new Error('QIM_DRILLS_SERVE_PORTS must be "<writer port>,<mailbox port>"');
  const replicas = Number(process.env['QIM_DRILLS_SERVE_REPLICAS'] ?? '1');
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > 8) throw new Error('QIM_DRILLS_SERVE_REPLICAS must be an integer 1…8');
  const d = new Deployment(ctx.bundles, envOf(ctx, mode));
  // The drills' short lease, deadline and recovery timings make faults bite fast; a benchmark runs
  // the services' own defaults (a 3 s lease lapses on a saturated 2-core machine and stops sends).
  for (const k of DRILL_TIMINGS) delete d.env[k];
  // The admission settings of this shell reach the services (an A/B of a gate setting, tools/bench/e2e --mixed).
  for (const [k, v] of Object.entries(process.env)) if (k.startsWith('QIM_ADMISSION_') && v !== undefined) d.env[k] = v;
  // A Redis Cluster instead of the standalone server (redis mode): QIM_REDIS_CLUSTER_NODES of this shell, and
  // its replica acks if set (tools/bench/replicas.ts against the cluster, issue 30 item 7).
  const clusterNodes = process.env['QIM_REDIS_CLUSTER_NODES'];
  if (mode === 'redis' && clusterNodes !== undefined && clusterNodes !== '') {
    delete d.env['QIM_REDIS_URL'];
    d.env['QIM_REDIS_CLUSTER_NODES'] = clusterNodes;
    const acks = process.env['QIM_REDIS_MIN_REPLICA_ACKS'];
    if (acks !== undefined) d.env['QIM_REDIS_MIN_REPLICA_ACKS'] = acks;
  }
  const stop = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  try {
    ctx.log(`deployment ${d.run} (${mode}): logs in .infra/drills/${d.run}/`);
    await d.createTopics();
    const w = await d.add('writer', 'writer-1', wp);
    const m = await d.add('mailbox', 'mailbox-1', mp);
    for (let i = 2; i <= replicas; i += 1) {
      // A mailbox joining takes a consumer-group rebalance: slow on a loaded machine.
      await d.add('writer', `writer-${i}`, undefined, 300_000);
      await d.add('mailbox', `mailbox-${i}`, undefined, 300_000);
    }
    const urls = (kind: 'writer' | 'mailbox'): string =>
      d
        .of(kind)
        .map((i) => i.url)
        .join(',');
    process.stdout.write(
      `export WRITER_URL=${w.url}\nexport MAILBOX_URL=${m.url}\nexport WRITER_URLS=${urls('writer')}\nexport MAILBOX_URLS=${urls('mailbox')}\n`,
    );
    process.stdout.write(`export QIM_SERVICE_TOKEN=${DRILL_TOKEN}\nexport QIM_STORE_BACKEND=${d.env['QIM_STORE_BACKEND']}\n`);
    const hosts = d.env['QIM_SCYLLA_HOSTS'];
    const cluster = hosts ? `: ${hosts} RF ${d.env['QIM_SCYLLA_RF']}, keyspace ${d.env['QIM_SCYLLA_KEYSPACE']}` : '';
    ctx.log(`ready (${mode}${cluster}); SIGINT/SIGTERM stops it`);
    await stop;
    return 0;
  } finally {
    await d.down();
    ctx.log('stopped');
  }
}
