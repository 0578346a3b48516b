import { execFileSync } from 'node:child_process';
import path from 'node:path';

/**
 * The layering of design 06, checked through the real lint configuration: each case lints one
 * virtual file placed in a project (nothing is written) and names whether the boundaries rule fires.
 */
const root = path.resolve(__dirname, '../..');
const RULE = '@nx/enforce-module-boundaries';

const cases: readonly { name: string; filePath: string; code: string; forbidden: boolean }[] = [
  { name: 'store-core imports a driver', filePath: 'libs/store-core/src/zz-probe.ts', code: "import Redis from 'ioredis';\nexport const x = Redis;\n", forbidden: true },
  { name: 'store-core imports the HTTP stack', filePath: 'libs/store-core/src/zz-probe.ts', code: "import fastify from 'fastify';\nexport const x = fastify;\n", forbidden: true },
  { name: 'store-core imports a backend', filePath: 'libs/store-core/src/zz-probe.ts', code: "import { MemoryMessageStore } from '@qim/store-memory';\nexport const x = MemoryMessageStore;\n", forbidden: true },
  { name: 'the Redis backend imports the CQL driver', filePath: 'libs/store-redis/src/zz-probe.ts', code: "import { Client } from 'cassandra-driver';\nexport const x = Client;\n", forbidden: true },
  { name: 'the Scylla backend imports ioredis', filePath: 'libs/store-scylla/src/zz-probe.ts', code: "import Redis from 'ioredis';\nexport const x = Redis;\n", forbidden: true },
  { name: 'an app imports a backend directly', filePath: 'apps/writer/src/zz-probe.ts', code: "import { MemoryMessageStore } from '@qim/store-memory';\nexport const x = MemoryMessageStore;\n", forbidden: true },
  { name: 'an app imports a driver', filePath: 'apps/mailbox/src/zz-probe.ts', code: "import { Kafka } from 'kafkajs';\nexport const x = Kafka;\n", forbidden: true },
  { name: 'the service library imports a driver', filePath: 'libs/service-kit/src/zz-probe.ts', code: "import Redis from 'ioredis';\nexport const x = Redis;\n", forbidden: true },
  { name: 'the Redis backend imports its own driver', filePath: 'libs/store-redis/src/zz-probe.ts', code: "import Redis from 'ioredis';\nexport const x = Redis;\n", forbidden: false },
  { name: 'the bus imports kafkajs', filePath: 'libs/bus/src/zz-probe.ts', code: "import { Kafka } from 'kafkajs';\nexport const x = Kafka;\n", forbidden: false },
  { name: 'an app imports the service library', filePath: 'apps/writer/src/zz-probe.ts', code: "import * as kit from '@qim/service-kit';\nexport const x = kit;\n", forbidden: false },
  { name: 'the client imports a library of ours', filePath: 'libs/client/src/zz-probe.ts', code: "import { isId128 } from '@qim/store-core';\nexport const x = isId128;\n", forbidden: true },
  { name: 'the client imports the HTTP server stack', filePath: 'libs/client/src/zz-probe.ts', code: "import fastify from 'fastify';\nexport const x = fastify;\n", forbidden: true },
  { name: 'an app imports the client', filePath: 'apps/cli/src/zz-probe.ts', code: "import { QimClient } from '@qim/client';\nexport const x = QimClient;\n", forbidden: false },
];

describe('layering is enforced by lint', () => {
  const fired: string[][] = JSON.parse(
    execFileSync(process.execPath, [path.join(root, 'tools/ci/lint-probe.mjs'), JSON.stringify(cases)], {
      cwd: root,
      env: { ...process.env, NX_DAEMON: 'false' },
      encoding: 'utf8',
      timeout: 120_000,
    }),
  );

  it.each(cases.map((c, i) => [c.name, c.forbidden, i] as const))('%s → forbidden: %s', (_name, forbidden, i) => {
    expect(fired[i]!.includes(RULE)).toBe(forbidden);
    expect(fired[i]!.filter((r) => r.startsWith('fatal'))).toEqual([]);
  });
});
