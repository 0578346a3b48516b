import { buildServiceBundles, existingBundles } from './stack/bundles';
import { infraOk, parseExports } from './stack/infra';
import type { Drill, DrillSize } from './drills/drill';
import { dualInstance, kafkaKill, kill9, redisRestart } from './drills/redis-drills';
import { nodeDown, rfDcFaults, twoNodesDown } from './drills/scylla-drills';

const DRILLS: readonly Drill[] = [dualInstance, kill9, kafkaKill, redisRestart, nodeDown, twoNodesDown, rfDcFaults];

function usage(): never {
  process.stderr.write(`usage: tools/drills/run <drill|list> [--short] [--no-build]\n\n${DRILLS.map((d) => `  ${d.name.padEnd(15)} [${d.needs}] ${d.summary}`).join('\n')}\n`);
  process.exit(2);
}

async function main(argv: readonly string[]): Promise<number> {
  const args = argv.filter((a) => !a.startsWith('--'));
  const size: DrillSize = argv.includes('--short') ? 'short' : 'full';
  if (args[0] === 'list') {
    for (const d of DRILLS) process.stdout.write(`${d.name}\n`);
    return 0;
  }
  const drill = DRILLS.find((d) => d.name === args[0]);
  if (!drill || args.length !== 1) usage();
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
    process.stderr.write(`drill error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\nFAIL\n`);
    process.exit(1);
  },
);
