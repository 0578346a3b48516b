import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { QIM_VARIABLES, parseServiceEnv } from '@qim/backends';
import { writerEnvSchema } from '@qim/writer-runtime';
import { mailboxEnvSchema } from '@qim/mailbox-runtime';

/**
 * Static validation of docker/ (there is no Docker engine on CI machines): the compose file parses,
 * has the promised topology, and every QIM_* variable it gives a service is accepted by that
 * service's zod schema (so the required ones are present too). The Dockerfiles are multi-stage,
 * ship only their project's build output, run as non-root and health-check /readyz.
 */
const dockerDir = path.resolve(__dirname, '../../../docker');
const compose = YAML.parse(fs.readFileSync(path.join(dockerDir, 'compose.yaml'), 'utf8'), { merge: true }) as {
  services: Record<
    string,
    {
      image?: string;
      command?: string[];
      environment?: Record<string, string>;
      depends_on?: Record<string, { condition: string }>;
      build?: { dockerfile: string };
      stop_grace_period?: string;
      volumes?: string[];
    }
  >;
};

/** Compose interpolation `${NAME:?message}` / `${NAME:-default}` / `${NAME}` with the operator's values. */
function interpolate(value: string, given: Record<string, string>): string {
  return value.replace(/\$\{([A-Z0-9_]+)(?::([?-])([^}]*))?\}/g, (_m, name: string, op?: string, arg?: string) => {
    const v = given[name];
    if (v !== undefined && v !== '') return v;
    if (op === '-') return arg ?? '';
    throw new Error(`compose needs ${name}: ${arg ?? 'unset'}`);
  });
}

const operator = { QIM_SERVICE_TOKEN: 'compose-check-token-0123456789' };
const envOf = (service: string) =>
  Object.fromEntries(Object.entries(compose.services[service]?.environment ?? {}).map(([k, v]) => [k, interpolate(String(v), operator)]));

describe('docker/compose.yaml', () => {
  it('runs 3 ScyllaDB nodes, 3 Kafka brokers, Redis with AOF and both services', () => {
    const s = compose.services;
    expect(Object.keys(s).sort()).toEqual(['create-topics', 'kafka-1', 'kafka-2', 'kafka-3', 'mailbox', 'redis', 'scylla-1', 'scylla-2', 'scylla-3', 'writer']);
    for (const n of ['scylla-1', 'scylla-2', 'scylla-3']) {
      expect(s[n]!.image).toMatch(/^scylladb\/scylla:/);
      expect(s[n]!.command).toContain('--seeds=scylla-1');
    }
    // Production requires appendfsync always (store-redis README, "Durability"): an OS crash must not roll back an ACK.
    expect(s['redis']!.command).toEqual(expect.arrayContaining(['--appendonly', 'yes', '--appendfsync', 'always']));
    // Settings that lose data silently, set explicitly (readiness refuses any other value outside development/test).
    expect(s['redis']!.command).toEqual(expect.arrayContaining(['--maxmemory-policy', 'noeviction', '--no-appendfsync-on-rewrite', 'no']));
    for (const n of ['kafka-1', 'kafka-2', 'kafka-3']) {
      expect(s[n]!.environment!['KAFKA_PROCESS_ROLES']).toBe('broker,controller');
      expect(s[n]!.environment!['KAFKA_AUTO_CREATE_TOPICS_ENABLE']).toBe('false');
    }
  });

  it('runs a 3-broker KRaft quorum that keeps its logs in named volumes and tolerates one broker down', () => {
    const brokers = ['kafka-1', 'kafka-2', 'kafka-3'];
    const envs = brokers.map((n) => compose.services[n]!.environment!);
    expect(envs.map((e) => e['KAFKA_NODE_ID'])).toEqual(['1', '2', '3']);
    expect(new Set(envs.map((e) => e['CLUSTER_ID'])).size).toBe(1);
    expect(envs[0]!['CLUSTER_ID']).toMatch(/^[A-Za-z0-9_-]{22}$/);
    brokers.forEach((n, i) => {
      const e = envs[i]!;
      expect(e['KAFKA_CONTROLLER_QUORUM_VOTERS']).toBe('1@kafka-1:9093,2@kafka-2:9093,3@kafka-3:9093');
      expect(e['KAFKA_ADVERTISED_LISTENERS']).toBe(`PLAINTEXT://${n}:9092`);
      // The log directory is the mounted volume (the image's default is a temporary directory).
      expect(e['KAFKA_LOG_DIRS']).toBe('/var/lib/kafka/data');
      expect(compose.services[n]!.volumes).toEqual([`${n}:/var/lib/kafka/data`]);
      expect(e).toMatchObject({
        KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '3',
        KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '3',
        KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '2',
        KAFKA_MIN_INSYNC_REPLICAS: '2',
        KAFKA_UNCLEAN_LEADER_ELECTION_ENABLE: 'false',
      });
    });
    for (const svc of ['writer', 'mailbox', 'create-topics']) {
      const c = parseServiceEnv(mailboxEnvSchema, { ...envOf(svc), QIM_MAILBOX_SHARDS: '8', QIM_MAILBOX_EPOCH: '0' });
      expect([svc, c.kafka.brokers, c.kafka.replication]).toEqual([svc, ['kafka-1:9092', 'kafka-2:9092', 'kafka-3:9092'], 3]);
    }
    expect(compose.services['create-topics']!.depends_on).toEqual({
      'kafka-1': { condition: 'service_healthy' },
      'kafka-2': { condition: 'service_healthy' },
      'kafka-3': { condition: 'service_healthy' },
    });
  });

  it('creates topics by the explicit step before the services start', () => {
    expect(compose.services['create-topics']!.command).toEqual(['node', 'main.js', 'create-topics']);
    for (const svc of ['writer', 'mailbox']) {
      expect(compose.services[svc]!.depends_on!['create-topics']).toEqual({ condition: 'service_completed_successfully' });
      expect(compose.services[svc]!.depends_on!['scylla-3']).toEqual({ condition: 'service_healthy' });
    }
  });

  it('gives the writer an environment its schema accepts: scylla, RF 3, production, Redis for leases', () => {
    const env = envOf('writer');
    expect(Object.keys(env).every((k) => QIM_VARIABLES.has(k))).toBe(true);
    const c = parseServiceEnv(writerEnvSchema, env);
    expect(c.env).toBe('production');
    expect(c.backend).toMatchObject({
      kind: 'scylla',
      replicationFactor: 3,
      localDataCenter: 'datacenter1',
      hosts: ['scylla-1:9042', 'scylla-2:9042', 'scylla-3:9042'],
    });
    expect(c.coordination).toEqual({ kind: 'redis', redisUrl: 'redis://redis:6379', namespace: 'qim', replicaAcks: { min: 0, timeoutMs: 1_000 } });
  });

  it('gives the mailbox and the topic step environments their schema accepts, with no Redis in scylla mode', () => {
    for (const svc of ['mailbox', 'create-topics']) {
      const env = envOf(svc);
      expect(Object.keys(env).every((k) => QIM_VARIABLES.has(k))).toBe(true);
      const c = parseServiceEnv(mailboxEnvSchema, env);
      expect(c).toMatchObject({ shards: 8, epoch: 0, backend: { kind: 'scylla' } });
      expect(env['QIM_REDIS_URL']).toBeUndefined();
    }
  });

  it('gives each service a stop_grace_period longer than its own shutdown deadline', () => {
    const durationMs = (d: string | undefined): number => {
      const m = /^(\d+)(ms|s|m)$/.exec(d ?? '');
      if (!m) throw new Error(`unparsable stop_grace_period ${d}`);
      return Number(m[1]) * { ms: 1, s: 1_000, m: 60_000 }[m[2] as 'ms' | 's' | 'm'];
    };
    const deadlines = {
      writer: parseServiceEnv(writerEnvSchema, envOf('writer')).shutdownDeadlineMs,
      mailbox: parseServiceEnv(mailboxEnvSchema, envOf('mailbox')).shutdownDeadlineMs,
    };
    for (const [svc, deadline] of Object.entries(deadlines)) {
      // Docker's default (10 s) would kill the process inside its own shutdown sequence.
      expect([svc, durationMs(compose.services[svc]!.stop_grace_period) - deadline >= 5_000]).toEqual([svc, true]);
    }
  });

  it('refuses to start without the operator token', () => {
    expect(() => envOf('writer') && interpolate(String(compose.services['writer']!.environment!['QIM_SERVICE_TOKEN']), {})).toThrow(/QIM_SERVICE_TOKEN/);
  });
});

describe.each(['writer', 'mailbox'])('docker/%s.Dockerfile', (svc) => {
  const text = fs.readFileSync(path.join(dockerDir, `${svc}.Dockerfile`), 'utf8');

  it('is multi-stage, builds only its project and ships only its build output', () => {
    expect(text.match(/^FROM /gm)?.length).toBeGreaterThanOrEqual(2);
    expect(text).toContain(`nx run ${svc}:build`);
    expect(text).toContain(`COPY --from=build --chown=root:root /src/dist/apps/${svc}/ ./`);
    expect(text).toContain('npm ci --omit=dev');
  });

  it('runs as non-root with a /readyz health check', () => {
    expect(text).toMatch(/^USER node$/m);
    expect(text).toMatch(/^HEALTHCHECK [^\n]*\\\n\s+CMD [^\n]*\/readyz/m);
  });

  it('starts the service with the production node flags (docs/configuration.md, "Node flags")', () => {
    expect(text).toMatch(/^CMD \["node", "--max-semi-space-size=32", "main.js"\]$/m);
  });
});

describe('.dockerignore (the build context of both images is the repository root)', () => {
  const repoRoot = path.resolve(dockerDir, '..');
  const ignoreFile = path.join(repoRoot, '.dockerignore');
  const patterns = (): string[] =>
    fs
      .readFileSync(ignoreFile, 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
  /** Docker's matching, as far as these patterns use it: `**` any folders, `*` within one name; a match excludes the folder's contents too. */
  const ignored = (rel: string): boolean => {
    let out = false;
    for (const raw of patterns()) {
      const negate = raw.startsWith('!');
      const p = (negate ? raw.slice(1) : raw).replace(/^\/+|\/+$/g, '');
      const re = new RegExp(
        `^${p.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*\*\/?|\*|\?/g, (m) => (m === '*' ? '[^/]*' : m === '?' ? '[^/]' : '(?:.*/)?'))}(?:/.*)?$`,
      );
      if (re.test(rel)) out = !negate;
    }
    return out;
  };

  it('exists and keeps dependencies, build output, local state and VCS data out of the context', () => {
    expect(fs.existsSync(ignoreFile)).toBe(true);
    for (const p of [
      'node_modules',
      'libs/store-core/node_modules',
      'dist/apps/writer/main.js',
      '.infra/reports/e2e.json',
      '.nx/cache',
      'coverage/lcov.info',
      '.git/HEAD',
      'npm-debug.log',
    ]) {
      expect([p, ignored(p)]).toEqual([p, true]);
    }
  });

  it('keeps every path the Dockerfiles copy from the context', () => {
    for (const svc of ['writer', 'mailbox']) {
      const text = fs.readFileSync(path.join(dockerDir, `${svc}.Dockerfile`), 'utf8');
      const sources = [...text.matchAll(/^COPY (?!--from)(?:--\S+ )*(.+) \S+$/gm)].flatMap((m) => m[1]!.split(/\s+/));
      expect(sources).toEqual(expect.arrayContaining(['package.json', 'libs', `apps/${svc}`]));
      for (const src of sources) expect([svc, src, ignored(src), ignored(`${src}/src/main.ts`)]).toEqual([svc, src, false, false]);
    }
  });
});
