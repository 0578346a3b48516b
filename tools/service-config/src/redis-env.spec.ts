import { ConfigError } from '@qim/service-kit';
import { parseServiceEnv } from '@qim/backends';
import { writerEnvSchema } from '@qim/writer-runtime';
import { mailboxEnvSchema } from '@qim/mailbox-runtime';

const base = { QIM_SERVICE_TOKEN: 'a-long-enough-service-token', QIM_KAFKA_BROKERS: '127.0.0.1:19092' };
const nodes = '127.0.0.1:17001,127.0.0.1:17002';
const mailbox = { QIM_MAILBOX_SHARDS: '4', QIM_MAILBOX_EPOCH: '0' };

function issues(env: Record<string, string>): { variable: string; message: string }[] {
  try {
    parseServiceEnv(writerEnvSchema, env);
  } catch (err) {
    if (err instanceof ConfigError) return err.issues.map((i) => ({ variable: i.variable, message: i.message }));
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('QIM_REDIS_CLUSTER_NODES (ADR-0038)', () => {
  it('a cluster of seed nodes: the backend, the writer coordination and the mailbox use it, with the replica acks', () => {
    const c = parseServiceEnv(writerEnvSchema, { ...base, QIM_REDIS_CLUSTER_NODES: nodes, QIM_REDIS_MIN_REPLICA_ACKS: '1' });
    const target = {
      clusterNodes: [
        { host: '127.0.0.1', port: 17001 },
        { host: '127.0.0.1', port: 17002 },
      ],
      tls: false,
    };
    expect(c.backend).toEqual({ kind: 'redis', redisUrl: target, namespace: 'qim', replicaAcks: { min: 1, timeoutMs: 1_000 } });
    expect(c.coordination).toEqual(c.backend);
    const m = parseServiceEnv(mailboxEnvSchema, { ...base, ...mailbox, QIM_ENV: 'test', QIM_REDIS_CLUSTER_NODES: nodes });
    expect(m.backend).toMatchObject({ kind: 'redis', redisUrl: target, replicaAcks: { min: 0 } });
  });

  it('TLS and credentials as for one server: a rediss:// scheme and user:password@ before the list', () => {
    const c = parseServiceEnv(writerEnvSchema, {
      ...base,
      QIM_ENV: 'test',
      QIM_REDIS_CLUSTER_NODES: 'rediss://qim:s%40cret@cache-1.internal:6379,cache-2.internal:6380',
    });
    expect(c.backend).toMatchObject({
      kind: 'redis',
      redisUrl: {
        clusterNodes: [
          { host: 'cache-1.internal', port: 6379 },
          { host: 'cache-2.internal', port: 6380 },
        ],
        tls: true,
        username: 'qim',
        password: 's@cret',
      },
    });
  });

  it('refuses both forms at once, a malformed node, and a production cluster without replica acks, naming the variable', () => {
    expect(issues({ ...base, QIM_REDIS_URL: 'redis://127.0.0.1:16379', QIM_REDIS_CLUSTER_NODES: nodes, QIM_REDIS_MIN_REPLICA_ACKS: '1' })).toEqual([
      { variable: 'QIM_REDIS_CLUSTER_NODES', message: expect.stringMatching(/either QIM_REDIS_URL .* or QIM_REDIS_CLUSTER_NODES/) },
    ]);
    expect(issues({ ...base, QIM_ENV: 'test', QIM_REDIS_CLUSTER_NODES: '127.0.0.1:17001,nohost' })).toEqual([
      { variable: 'QIM_REDIS_CLUSTER_NODES', message: expect.stringMatching(/'nohost' is not host:port/) },
    ]);
    expect(issues({ ...base, QIM_REDIS_CLUSTER_NODES: nodes })).toEqual([
      { variable: 'QIM_REDIS_MIN_REPLICA_ACKS', message: expect.stringMatching(/must be ≥ 1 with QIM_ENV=production on a Redis Cluster/) },
    ]);
    expect(issues({ ...base, QIM_ENV: 'test', QIM_REDIS_CLUSTER_NODES: nodes, QIM_REDIS_REPLICA_WAIT_MS: '5000' })[0]?.variable).toBe(
      'QIM_REDIS_REPLICA_WAIT_MS',
    );
  });
});
