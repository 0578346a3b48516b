import { buildServiceBundles, existingBundles } from './stack/bundles';
import { infraOk, parseExports } from './stack/infra';
import { killAllServiceProcesses } from '@qim/service-stack';
import type { Drill, DrillSize } from './drills/drill';
import { dualInstance, kafkaKill, kill9, redisRestart } from './drills/redis-drills';
import { kill9Scylla, nodeDown, rfDcFaults, twoNodesDown } from './drills/scylla-drills';
import { kafkaLeaderKill } from './drills/kafka-leader-kill';
import { redisFailover, redisFailoverFrontier } from './drills/redis-failover';
import { redisFreeze } from './drills/redis-freeze';
import { refusedShard } from './drills/refused-shard';
import { sourceHole } from './drills/source-hole';
import type { ServeMode } from './serve';
import { SERVE_MODES, serve } from './serve';

const DRILLS: readonly Drill[] = [
  dualInstance,
  kill9,
  kafkaKill,
  kafkaLeaderKill,
  redisRestart,
  redisFailover,
  redisFailoverFrontier,
  redisFreeze,
  sourceHole,
  refusedShard,
  nodeDown,
  twoNodesDown,
  rfDcFaults,
  kill9Scylla,
];

function usage(): never {
  process.stderr.write(
    'usage: tools/drills/run <drill|list> [--short] [--no-build]\n' +
      `       tools/drills/run serve <${SERVE_MODES.join('|')}> [--no-build]   (services for tools/bench/e2e)\n\n` +
      `${DRILLS.map((d) => `  ${d.name.padEnd(23)} [${d.needs}] ${d.summary}`).join('\n')}\n`,
  );
  process.exit(2);
}

async function main(argv: readonly string[]): Promise<number> {
  const args = argv.filter((a) => !a.startsWith('--'));
  const size: DrillSize = argv.includes('--short') ? 'short' : 'full';
  if (args[0] === 'list') {
    // `list scylla3`: only the drills that need the 3-node cluster (ci-short.sh starts it once for them).
    for (const d of DRILLS) if (args[1] === undefined || d.needs === args[1]) process.stdout.write(`${d.name}\n`);
    return 0;
  }
  if (args[0] === 'serve') {
    const mode = args[1] as ServeMode;
    if (!SERVE_MODES.includes(mode) || args.length !== 2) usage();
    const log = (line: string): void => void process.stderr.write(`[serve ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
    const servers = mode === 'redis' ? ['redis', 'kafka'] : mode === 'scylla' ? ['redis', 'kafka', 'cassandra'] : ['redis', 'kafka', 'cassandra3'];
    const up = await infraOk(['up', ...servers]);
    const bundles = argv.includes('--no-build') ? existingBundles() : buildServiceBundles();
    return serve({ size: 'short', bundles, infraEnv: parseExports(up.stdout), log }, mode);
  }
  const drill = DRILLS.find((d) => d.name === args[0]);
  if (!drill || args.length !== 1) usage();
  // A bounded CI step (`timeout` in ci-short.sh) ends the runner with SIGTERM: take the services along.
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    process.once(sig, () => {
      process.stderr.write(`[drill ${drill.name}] ${sig}: killed ${killAllServiceProcesses()} service process(es)\nFAIL\n`);
      process.exit(1);
    });
  }
  const log = (line: string): void => void process.stderr.write(`[drill ${drill.name} ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
  const t0 = Date.now();
  log(`starting infrastructure (${drill.needs === 'scylla3' ? 'redis kafka cassandra3' : 'redis kafka'})`);
  const up = await infraOk(drill.needs === 'scylla3' ? ['up', 'redis', 'kafka', 'cassandra3'] : ['up', 'redis', 'kafka']);
  log(`infrastructure ready in ${(up.ms / 1000).toFixed(1)} s; building services`);
  const bundles = argv.includes('--no-build') ? existingBundles() : buildServiceBundles();
  const pass = await drill.run({ size, bundles, infraEnv: parseExports(up.stdout), log });
  log(`${pass ? 'PASS' : 'FAIL'} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return pass ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    // A drill that failed before its own clean-up (e.g. a service that never became ready) leaves no processes behind.
    const killed = killAllServiceProcesses();
    process.stderr.write(
      `drill error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n${killed > 0 ? `killed ${killed} service process(es)\n` : ''}FAIL\n`,
    );
    process.exit(1);
  },
);
