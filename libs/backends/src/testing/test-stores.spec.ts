import { randomBytes } from 'node:crypto';
import { ConfigError } from '@qim/service-kit';
import { DurableMessageCommitter, systemClock } from '@qim/store-core';
import type { Id128, MessageStore } from '@qim/store-core';
import { backendConfigFromEnv, openTestStores } from './test-stores';

/**
 * The soak's and the benchmarks' way to the stores (`@qim/backends/testing`): a backend's settings
 * from the services' variables, and each kit's inspection seam over real storage — Memory's tables,
 * Redis on one server and on the 3 + 3 cluster (`QIM_REDIS_URL`, `QIM_TEST_REDIS_CLUSTER_NODES`: a
 * missing one fails the spec, it never skips).
 */
jest.setTimeout(60_000);

const rid = (): Id128 => randomBytes(16).toString('hex') as Id128;

/** One committed send through the store (a publisher that answers at once). */
async function commitOne(store: MessageStore): Promise<void> {
  const committer = new DurableMessageCommitter(store, { publish: async () => ({ topic: 'qim.messages', partition: 0, offset: 0n }) });
  const request = {
    tenantId: rid(),
    senderId: rid(),
    clientMessageId: rid(),
    conversationId: rid(),
    kind: 'normal',
    control: false,
    contentType: 'text/plain',
    body: Buffer.from('hi'),
    retention: { kind: 'default' },
  } as const;
  await committer.send({ request, messageId: rid(), createdAt: systemClock.nowMs(), recipients: [request.senderId] });
}

function required(name: string): string {
  const v = process.env[name];
  if (v === undefined || v.trim() === '') throw new Error(`${name} is not set: eval "$(tools/infra/infra env)" (this spec never skips)`);
  return v;
}

/** `url` in logical database `db` unless it names one. */
function withDb(url: string, db: number): string {
  const u = new URL(url);
  if (u.pathname !== '' && u.pathname !== '/') return url;
  u.pathname = `/${db}`;
  return u.toString();
}

describe('backendConfigFromEnv: the services’ variables, the module’s rules', () => {
  it('reads a Redis Cluster from QIM_REDIS_CLUSTER_NODES with the Redis backend’s parser', () => {
    const cfg = backendConfigFromEnv('redis', { QIM_REDIS_CLUSTER_NODES: 'rediss://u:p@10.0.0.1:7000,10.0.0.2:7001' });
    expect(cfg.redisUrl).toEqual({
      clusterNodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
      ],
      tls: true,
      username: 'u',
      password: 'p',
    });
    expect(cfg.namespace).toBe('qim');
  });

  it('reads one server from QIM_REDIS_URL and ignores the tool’s own QIM_* variables', () => {
    const cfg = backendConfigFromEnv('redis', { QIM_REDIS_URL: 'redis://127.0.0.1:1', QIM_BENCH_SECONDS: '2', QIM_KAFKA_BROKERS: 'x:1' });
    expect(cfg.redisUrl).toBe('redis://127.0.0.1:1');
  });

  it('refuses what the services refuse, naming the variable', () => {
    const refused = (env: Record<string, string>): ConfigError => {
      try {
        backendConfigFromEnv('redis', env);
      } catch (e) {
        if (e instanceof ConfigError) return e;
        throw e;
      }
      throw new Error(`accepted ${JSON.stringify(env)}`);
    };
    expect(refused({ QIM_REDIS_URL: 'redis://a:1', QIM_REDIS_CLUSTER_NODES: 'a:1' }).issues.map((i) => i.variable)).toEqual(['QIM_REDIS_CLUSTER_NODES']);
    expect(refused({ QIM_REDIS_CLUSTER_NODES: 'a:1,b' }).message).toMatch(/QIM_REDIS_CLUSTER_NODES: redis cluster node 'b' is not host:port/);
    expect(refused({ QIM_ENV: 'production', QIM_REDIS_CLUSTER_NODES: 'a:1' }).issues.map((i) => i.variable)).toEqual(['QIM_REDIS_MIN_REPLICA_ACKS']);
    expect(refused({}).message).toMatch(/QIM_REDIS_URL: required .*QIM_REDIS_CLUSTER_NODES/);
    expect(refused({ QIM_ENV: 'nowhere', QIM_REDIS_URL: 'redis://a:1' }).issues.map((i) => i.variable)).toEqual(['QIM_ENV']);
  });

  it('is a test tool: QIM_ENV is test unless set (Memory allowed), production refuses Memory as the services do', () => {
    expect(backendConfigFromEnv('memory', {})).toEqual({ kind: 'memory' });
    expect(() => backendConfigFromEnv('memory', { QIM_ENV: 'production' })).toThrow(/memory is allowed only with QIM_ENV=development\|test/);
  });
});

describe('the Memory kit', () => {
  it('counts its tables’ rows through its inspection seam, mailbox stores sharing one storage', async () => {
    const stores = await openTestStores({ kind: 'memory' }, { clock: systemClock });
    const empty = stores.inspect.census();
    expect(empty['message_record']).toBe(0);
    expect(empty['shard_frontier']).toBe(0);
    await commitOne(stores.messages);
    const gc = { entryRetentionMs: 86_400_000n, dispatchDedupeMs: 86_400_000n };
    const a = stores.mailboxStore({ shard: 0, epoch: 1 }, gc);
    await a.applyPage({ fromOffset: 0n, toOffset: 4n, records: [] });
    const b = stores.mailboxStore({ shard: 0, epoch: 1 }, gc);
    expect((await b.frontier()).offset).toBe(4n);
    const after = stores.inspect.census();
    expect(after['message_record']).toBe(1);
    expect(after['history_index']).toBe(1);
    expect(after['shard_frontier']).toBe(1);
    await a.close();
    await b.close();
    await stores.close();
  });
});

describe.each([
  // database 7 (as the soak): the shared server's database 0 holds what every other spec left, which SCAN would walk
  ['one server', () => ({ QIM_REDIS_URL: withDb(required('QIM_REDIS_URL'), 7) })],
  ['the cluster', () => ({ QIM_REDIS_CLUSTER_NODES: required('QIM_TEST_REDIS_CLUSTER_NODES') })],
])('the Redis kit on %s', (_name, env) => {
  it('finds the namespace’s keys on every primary, rolls them back with DUMP/RESTORE, and deletes them on close', async () => {
    const namespace = `qimkit-${randomBytes(4).toString('hex')}`;
    const cfg = { ...backendConfigFromEnv('redis', env()), namespace };
    const stores = await openTestStores(cfg, { clock: systemClock });
    const inspect = stores.inspect;
    try {
      for (let i = 0; i < 12; i++) await commitOne(stores.messages); // 12 conversations: keys of many slots
      expect(inspect.messageStoreCommands()).toBeGreaterThan(0);
      const keys = await inspect.keys();
      expect(keys.length).toBeGreaterThanOrEqual(12);
      expect(keys.every((k) => k.startsWith(`${namespace}:`))).toBe(true);
      const facts = await inspect.describe(keys);
      expect(facts.every((f) => f.type !== 'none')).toBe(true);
      const snapshot = await inspect.snapshot(keys);
      expect(snapshot).toHaveLength(keys.length);
      await inspect.del(keys);
      expect(await inspect.keys()).toEqual([]);
      expect((await inspect.describe(keys)).every((f) => f.type === 'none' && f.expiresAtMs === -2)).toBe(true);
      await inspect.restore(snapshot);
      const back = await inspect.describe(keys);
      expect(back.map((f) => [f.key, f.type, f.expiresAtMs, f.members])).toEqual(facts.map((f) => [f.key, f.type, f.expiresAtMs, f.members]));
    } finally {
      await stores.close();
    }
    const again = await openTestStores(cfg, { clock: systemClock });
    expect(await again.inspect.keys()).toEqual([]);
    await again.close();
  });
});
