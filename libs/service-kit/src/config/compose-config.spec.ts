import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { mailboxEnvSchema } from './mailbox-config';
import { KNOWN_QIM_VARIABLES, parseEnv } from './parse-env';
import { writerEnvSchema } from './writer-config';

/**
 * Static validation of docker/ (there is no Docker engine on CI machines): the compose file parses,
 * has the promised topology, and every QIM_* variable it gives a service is accepted by that
 * service's zod schema (so the required ones are present too). The Dockerfiles are multi-stage,
 * ship only their project's build output, run as non-root and health-check /readyz.
 */
const dockerDir = path.resolve(__dirname, '../../../../docker');
const compose = YAML.parse(fs.readFileSync(path.join(dockerDir, 'compose.yaml'), 'utf8'), { merge: true }) as {
  services: Record<string, { image?: string; command?: string[]; environment?: Record<string, string>; depends_on?: Record<string, { condition: string }>; build?: { dockerfile: string } }>;
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
  it('runs 3 ScyllaDB nodes, one Kafka broker, Redis with AOF and both services', () => {
    const s = compose.services;
    expect(Object.keys(s).sort()).toEqual(['create-topics', 'kafka', 'mailbox', 'redis', 'scylla-1', 'scylla-2', 'scylla-3', 'writer']);
    for (const n of ['scylla-1', 'scylla-2', 'scylla-3']) {
      expect(s[n]!.image).toMatch(/^scylladb\/scylla:/);
      expect(s[n]!.command).toContain('--seeds=scylla-1');
    }
    expect(s['redis']!.command).toEqual(expect.arrayContaining(['--appendonly', 'yes']));
    expect(s['kafka']!.environment!['KAFKA_PROCESS_ROLES']).toBe('broker,controller');
    expect(s['kafka']!.environment!['KAFKA_AUTO_CREATE_TOPICS_ENABLE']).toBe('false');
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
    expect(Object.keys(env).every((k) => KNOWN_QIM_VARIABLES.has(k))).toBe(true);
    const c = parseEnv(writerEnvSchema, env);
    expect(c.env).toBe('production');
    expect(c.backend).toMatchObject({ kind: 'scylla', replicationFactor: 3, localDataCenter: 'datacenter1', hosts: ['scylla-1:9042', 'scylla-2:9042', 'scylla-3:9042'] });
    expect(c.redisUrl).toBe('redis://redis:6379');
  });

  it('gives the mailbox and the topic step environments their schema accepts, with no Redis in scylla mode', () => {
    for (const svc of ['mailbox', 'create-topics']) {
      const env = envOf(svc);
      expect(Object.keys(env).every((k) => KNOWN_QIM_VARIABLES.has(k))).toBe(true);
      const c = parseEnv(mailboxEnvSchema, env);
      expect(c).toMatchObject({ shards: 8, epoch: 0, backend: { kind: 'scylla' } });
      expect(env['QIM_REDIS_URL']).toBeUndefined();
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
    expect(text).toMatch(/^CMD \["node", "main.js"\]$/m);
  });
});
