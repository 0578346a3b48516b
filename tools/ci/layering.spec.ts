import { execFileSync } from 'node:child_process';
import path from 'node:path';

/**
 * The layering of design 06, checked through the real lint configuration: each case lints one
 * virtual file placed in a project (nothing is written) and names whether the boundaries rule fires.
 */
const root = path.resolve(__dirname, '../..');
const RULE = '@nx/enforce-module-boundaries';

const LAYERS = 'no-restricted-imports';

const cases: readonly { name: string; filePath: string; code: string; forbidden: boolean; rule?: string }[] = [
  {
    name: 'store-core imports a driver',
    filePath: 'libs/store-core/src/zz-probe.ts',
    code: "import Redis from 'ioredis';\nexport const x = Redis;\n",
    forbidden: true,
  },
  {
    name: 'store-core imports the HTTP stack',
    filePath: 'libs/store-core/src/zz-probe.ts',
    code: "import fastify from 'fastify';\nexport const x = fastify;\n",
    forbidden: true,
  },
  {
    name: 'store-core imports a backend',
    filePath: 'libs/store-core/src/zz-probe.ts',
    code: "import { MemoryMessageStore } from '@qim/store-memory';\nexport const x = MemoryMessageStore;\n",
    forbidden: true,
  },
  {
    name: 'the Redis backend imports the CQL driver',
    filePath: 'libs/store-redis/src/zz-probe.ts',
    code: "import { Client } from 'cassandra-driver';\nexport const x = Client;\n",
    forbidden: true,
  },
  {
    name: 'the Scylla backend imports ioredis',
    filePath: 'libs/store-scylla/src/zz-probe.ts',
    code: "import Redis from 'ioredis';\nexport const x = Redis;\n",
    forbidden: true,
  },
  {
    name: 'an app imports a backend directly',
    filePath: 'apps/writer/src/zz-probe.ts',
    code: "import { MemoryMessageStore } from '@qim/store-memory';\nexport const x = MemoryMessageStore;\n",
    forbidden: true,
  },
  {
    name: 'an app imports a driver',
    filePath: 'apps/mailbox/src/zz-probe.ts',
    code: "import { Kafka } from 'kafkajs';\nexport const x = Kafka;\n",
    forbidden: true,
  },
  {
    name: 'the service library imports a driver',
    filePath: 'libs/service-kit/src/zz-probe.ts',
    code: "import Redis from 'ioredis';\nexport const x = Redis;\n",
    forbidden: true,
  },
  {
    name: 'the Redis backend imports its own driver',
    filePath: 'libs/store-redis/src/zz-probe.ts',
    code: "import Redis from 'ioredis';\nexport const x = Redis;\n",
    forbidden: false,
  },
  {
    name: 'the bus imports kafkajs',
    filePath: 'libs/bus/src/zz-probe.ts',
    code: "import { Kafka } from 'kafkajs';\nexport const x = Kafka;\n",
    forbidden: false,
  },
  {
    name: 'an app imports the service library',
    filePath: 'apps/writer/src/zz-probe.ts',
    code: "import * as kit from '@qim/service-kit';\nexport const x = kit;\n",
    forbidden: false,
  },
  {
    name: 'the client imports a library of ours',
    filePath: 'libs/client/src/zz-probe.ts',
    code: "import { isId128 } from '@qim/store-core';\nexport const x = isId128;\n",
    forbidden: true,
  },
  {
    name: 'the client imports the HTTP server stack',
    filePath: 'libs/client/src/zz-probe.ts',
    code: "import fastify from 'fastify';\nexport const x = fastify;\n",
    forbidden: true,
  },
  {
    name: 'the wire module imports the HTTP server stack',
    filePath: 'libs/wire/src/zz-probe.ts',
    code: "import fastify from 'fastify';\nexport const x = fastify;\n",
    forbidden: true,
  },
  {
    name: 'the wire module imports the service library',
    filePath: 'libs/wire/src/zz-probe.ts',
    code: "import * as kit from '@qim/service-kit';\nexport const x = kit;\n",
    forbidden: true,
  },
  {
    name: 'the wire module imports store-core',
    filePath: 'libs/wire/src/zz-probe.ts',
    code: "import { isId128 } from '@qim/store-core';\nexport const x = isId128;\n",
    forbidden: false,
  },
  {
    name: 'an app imports the wire module',
    filePath: 'apps/mailbox/src/zz-probe.ts',
    code: "import { id128 } from '@qim/wire';\nexport const x = id128;\n",
    forbidden: false,
  },
  // The client decodes answers with the services' own wire definitions, and nothing else of ours.
  {
    name: 'the client imports the wire module',
    filePath: 'libs/client/src/zz-probe.ts',
    code: "import { id128 } from '@qim/wire';\nexport const x = id128;\n",
    forbidden: false,
  },
  {
    name: 'the client imports store-core',
    filePath: 'libs/client/src/zz-probe.ts',
    code: "import { isId128 } from '@qim/store-core';\nexport const x = isId128;\n",
    forbidden: true,
  },
  {
    name: 'an app imports the client',
    filePath: 'apps/cli/src/zz-probe.ts',
    code: "import { QimClient } from '@qim/client';\nexport const x = QimClient;\n",
    forbidden: false,
  },
  // One runtime library per service over service-kit: the mailbox side never reaches writer code (leases, coordination).
  {
    name: 'the mailbox runtime imports the writer runtime (leases)',
    filePath: 'libs/mailbox-runtime/src/zz-probe.ts',
    code: "import { LeaseKeeper } from '@qim/writer-runtime';\nexport const x = LeaseKeeper;\n",
    forbidden: true,
  },
  {
    name: 'the mailbox app imports the writer runtime (coordination)',
    filePath: 'apps/mailbox/src/zz-probe.ts',
    code: "import { openCoordination } from '@qim/writer-runtime';\nexport const x = openCoordination;\n",
    forbidden: true,
  },
  {
    name: 'the mailbox runtime imports a backend (its lease store)',
    filePath: 'libs/mailbox-runtime/src/zz-probe.ts',
    code: "import { MemoryLeaseStore } from '@qim/store-memory';\nexport const x = MemoryLeaseStore;\n",
    forbidden: true,
  },
  {
    name: 'the writer runtime imports the mailbox runtime',
    filePath: 'libs/writer-runtime/src/zz-probe.ts',
    code: "import { ShardWorker } from '@qim/mailbox-runtime';\nexport const x = ShardWorker;\n",
    forbidden: true,
  },
  {
    name: 'the writer app imports the mailbox runtime',
    filePath: 'apps/writer/src/zz-probe.ts',
    code: "import { MailboxReader } from '@qim/mailbox-runtime';\nexport const x = MailboxReader;\n",
    forbidden: true,
  },
  {
    name: 'the service library imports a runtime',
    filePath: 'libs/service-kit/src/zz-probe.ts',
    code: "import { startWriterRuntime } from '@qim/writer-runtime';\nexport const x = startWriterRuntime;\n",
    forbidden: true,
  },
  {
    name: 'the writer runtime imports a driver',
    filePath: 'libs/writer-runtime/src/zz-probe.ts',
    code: "import Redis from 'ioredis';\nexport const x = Redis;\n",
    forbidden: true,
  },
  {
    name: 'the mailbox runtime imports the service library',
    filePath: 'libs/mailbox-runtime/src/zz-probe.ts',
    code: "import { ShutdownStack } from '@qim/service-kit';\nexport const x = ShutdownStack;\n",
    forbidden: false,
  },
  // One place opens a backend (ADR-0037): the registry in libs/backends; service-kit sits below the stores.
  {
    name: 'the mailbox runtime opens its stores through the backends registry',
    filePath: 'libs/mailbox-runtime/src/zz-probe.ts',
    code: "import { openMailboxBackend } from '@qim/backends';\nexport const x = openMailboxBackend;\n",
    forbidden: false,
  },
  {
    name: 'the writer runtime imports the Redis backend (its coordination stores)',
    filePath: 'libs/writer-runtime/src/zz-probe.ts',
    code: "import { RedisWriterCoordination } from '@qim/store-redis';\nexport const x = RedisWriterCoordination;\n",
    forbidden: true,
  },
  {
    name: 'the writer runtime opens its coordination through the backends registry',
    filePath: 'libs/writer-runtime/src/zz-probe.ts',
    code: "import { openCoordination } from '@qim/backends';\nexport const x = openCoordination;\n",
    forbidden: false,
  },
  {
    name: 'the service library imports a store',
    filePath: 'libs/service-kit/src/zz-probe.ts',
    code: "import { RedisMessageStore } from '@qim/store-redis';\nexport const x = RedisMessageStore;\n",
    forbidden: true,
  },
  {
    name: 'the service library imports the backends registry',
    filePath: 'libs/service-kit/src/zz-probe.ts',
    code: "import { BACKEND_MODULES } from '@qim/backends';\nexport const x = BACKEND_MODULES;\n",
    forbidden: true,
  },
  // Each service's configuration lives in its runtime; the checks over both live in tools/service-config.
  {
    name: 'the backends registry imports a runtime (for a service schema)',
    filePath: 'libs/backends/src/zz-probe.ts',
    code: "import { writerEnvSchema } from '@qim/writer-runtime';\nexport const x = writerEnvSchema;\n",
    forbidden: true,
  },
  {
    name: 'the writer runtime imports the mailbox runtime’s schema',
    filePath: 'libs/writer-runtime/src/zz-probe.ts',
    code: "import { mailboxEnvShape } from '@qim/mailbox-runtime';\nexport const x = mailboxEnvShape;\n",
    forbidden: true,
  },
  {
    name: 'the configuration checks read both runtimes’ schemas',
    filePath: 'tools/service-config/src/zz-probe.ts',
    code:
      "import { writerEnvShape } from '@qim/writer-runtime';\nimport { mailboxEnvShape } from '@qim/mailbox-runtime';\n" +
      'export const x = [writerEnvShape, mailboxEnvShape];\n',
    forbidden: false,
  },
  {
    name: 'the configuration checks import a driver',
    filePath: 'tools/service-config/src/zz-probe.ts',
    code: "import Redis from 'ioredis';\nexport const x = Redis;\n",
    forbidden: true,
  },
  {
    name: 'the backends registry imports a driver',
    filePath: 'libs/backends/src/zz-probe.ts',
    code: "import Redis from 'ioredis';\nexport const x = Redis;\n",
    forbidden: true,
  },
  {
    name: 'a store imports the backends registry',
    filePath: 'libs/store-memory/src/zz-probe.ts',
    code: "import { BACKEND_MODULES } from '@qim/backends';\nexport const x = BACKEND_MODULES;\n",
    forbidden: true,
  },
  {
    name: 'an app imports the backends registry',
    filePath: 'apps/admin/src/zz-probe.ts',
    code: "import { verifyScylla } from '@qim/backends';\nexport const x = verifyScylla;\n",
    forbidden: false,
  },
  {
    name: 'the writer app imports the writer runtime',
    filePath: 'apps/writer/src/zz-probe.ts',
    code: "import { startWriterRuntime } from '@qim/writer-runtime';\nexport const x = startWriterRuntime;\n",
    forbidden: false,
  },
  {
    name: 'the mailbox app imports the mailbox runtime',
    filePath: 'apps/mailbox/src/zz-probe.ts',
    code: "import { startMailboxRuntime } from '@qim/mailbox-runtime';\nexport const x = startMailboxRuntime;\n",
    forbidden: false,
  },
  // The soak and the benchmarks open stores through libs/backends too: its test kits (`@qim/backends/testing`), not the store libraries.
  {
    name: 'the soak imports a store library',
    filePath: 'tools/soak/src/zz-probe.ts',
    code: "import { MemoryMailboxBackend } from '@qim/store-memory';\nexport const x = MemoryMailboxBackend;\n",
    forbidden: true,
  },
  {
    name: "the soak imports a store library's testing entry",
    filePath: 'tools/soak/src/zz-probe.ts',
    code: "import { redisTestKit } from '@qim/store-redis/testing';\nexport const x = redisTestKit;\n",
    forbidden: true,
  },
  {
    name: 'the soak opens stores through the backends test kits',
    filePath: 'tools/soak/src/zz-probe.ts',
    code: "import { openTestStores } from '@qim/backends/testing';\nexport const x = openTestStores;\n",
    forbidden: false,
  },
  {
    name: 'a benchmark imports a store library',
    filePath: 'tools/bench/zz-probe.ts',
    code: "import { RedisMessageStore } from '@qim/store-redis';\nexport const x = RedisMessageStore;\n",
    forbidden: true,
  },
  {
    name: 'a benchmark opens stores through the backends test kits',
    filePath: 'tools/bench/zz-probe.ts',
    code: "import { openTestStores } from '@qim/backends/testing';\nexport const x = openTestStores;\n",
    forbidden: false,
  },
  {
    name: 'a benchmark imports a driver (its raw baseline)',
    filePath: 'tools/bench/zz-probe.ts',
    code: "import { Redis } from 'ioredis';\nexport const x = Redis;\n",
    forbidden: false,
  },
  {
    name: 'the operator CLI imports the mailbox runtime (offset reset)',
    filePath: 'apps/admin/src/zz-probe.ts',
    code: "import { resetMailboxOffsets } from '@qim/mailbox-runtime';\nexport const x = resetMailboxOffsets;\n",
    forbidden: false,
  },
  // Folder layers inside a library (each README's "Layers" list).
  {
    name: 'store-core: a codec imports a rule',
    filePath: 'libs/store-core/src/codecs/zz-probe.ts',
    code: "import { recordFromIntent } from '../rules/record-from-intent';\nexport const x = recordFromIntent;\n",
    forbidden: true,
    rule: LAYERS,
  },
  {
    name: 'store-core: the model imports a codec (type only)',
    filePath: 'libs/store-core/src/model/zz-probe.ts',
    code: "import type { MessageEvent } from '../codecs/message-event';\nexport type X = MessageEvent;\n",
    forbidden: true,
    rule: LAYERS,
  },
  {
    name: 'store-core: a rule imports a codec',
    filePath: 'libs/store-core/src/rules/zz-probe.ts',
    code: "import { encodeDispatchRecord } from '../codecs/dispatch-record';\nexport const x = encodeDispatchRecord;\n",
    forbidden: false,
    rule: LAYERS,
  },
  {
    name: 'store-core: production code imports testing/',
    filePath: 'libs/store-core/src/committer/zz-probe.ts',
    code: "import { commitIntentArb } from '../testing/arbitraries';\nexport const x = commitIntentArb;\n",
    forbidden: true,
    rule: LAYERS,
  },
  {
    name: 'store-scylla: session imports schema',
    filePath: 'libs/store-scylla/src/session/zz-probe.ts',
    code: "import { defineTable } from '../schema/table-spec';\nexport const x = defineTable;\n",
    forbidden: true,
    rule: LAYERS,
  },
  {
    name: 'store-scylla: schema imports a feature folder',
    filePath: 'libs/store-scylla/src/schema/zz-probe.ts',
    code: "import { MAILBOX_TABLES } from '../mailbox/schema';\nexport const x = MAILBOX_TABLES;\n",
    forbidden: true,
    rule: LAYERS,
  },
  {
    name: 'store-scylla: the message store imports the mailbox store (peers)',
    filePath: 'libs/store-scylla/src/message/zz-probe.ts',
    code: "import { ScyllaMailboxStore } from '../mailbox/scylla-mailbox-store';\nexport const x = ScyllaMailboxStore;\n",
    forbidden: true,
    rule: LAYERS,
  },
  {
    name: 'store-scylla: the mailbox context imports retention/',
    filePath: 'libs/store-scylla/src/mailbox/context/zz-probe.ts',
    code: "import { trimOf } from '../retention/trim';\nexport const x = trimOf;\n",
    forbidden: true,
    rule: LAYERS,
  },
  {
    name: 'store-scylla: a mailbox table imports the mailbox store file',
    filePath: 'libs/store-scylla/src/mailbox/tables/zz-probe.ts',
    code: "import { ScyllaMailboxStore } from '../scylla-mailbox-store';\nexport const x = ScyllaMailboxStore;\n",
    forbidden: true,
    rule: LAYERS,
  },
  {
    name: 'store-scylla: retention/ imports the context and session',
    filePath: 'libs/store-scylla/src/mailbox/retention/zz-probe.ts',
    code: "import { casLoop } from '../context/mailbox-context';\nimport { applied } from '../../session/statements';\nexport const x = [casLoop, applied];\n",
    forbidden: false,
    rule: LAYERS,
  },
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
    expect(fired[i]!.includes(cases[i]!.rule ?? RULE)).toBe(forbidden);
    expect(fired[i]!.filter((r) => r.startsWith('fatal'))).toEqual([]);
  });
});
