import { ConfigError } from '@qim/service-kit';
import { parseServiceEnv, scyllaEnvSchema } from '@qim/backends';
import { writerEnvSchema } from '@qim/writer-runtime';
import { mailboxEnvSchema } from '@qim/mailbox-runtime';

const base = {
  QIM_SERVICE_TOKEN: 'a-long-enough-service-token',
  QIM_KAFKA_BROKERS: '127.0.0.1:19092',
  QIM_REDIS_URL: 'redis://127.0.0.1:16379',
};
const scylla = {
  ...base,
  QIM_STORE_BACKEND: 'scylla',
  QIM_SCYLLA_HOSTS: 'n1,n2:9043',
  QIM_SCYLLA_KEYSPACE: 'qim',
  QIM_SCYLLA_DC: 'dc1',
  QIM_SCYLLA_RF: '3',
};
const mailbox = { QIM_MAILBOX_SHARDS: '4', QIM_MAILBOX_EPOCH: '0' };

function refusal(schema: typeof writerEnvSchema | typeof mailboxEnvSchema | typeof scyllaEnvSchema, env: Record<string, string>): ConfigError {
  try {
    parseServiceEnv(schema, env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}
const variables = (e: ConfigError) => e.issues.map((i) => i.variable).sort();

describe('writer environment', () => {
  it('defaults to production + redis and resolves every setting', () => {
    const c = parseServiceEnv(writerEnvSchema, base);
    expect(c.env).toBe('production');
    expect(c.backend).toEqual({ kind: 'redis', redisUrl: 'redis://127.0.0.1:16379', namespace: 'qim', replicaAcks: { min: 0, timeoutMs: 1_000 } });
    expect(c.coordination).toEqual(c.backend);
    expect(c.kafka.brokers).toEqual(['127.0.0.1:19092']);
    expect(c.kafka.messagesTopic).toBe('qim.messages');
    expect(c.http.port).toBe(8080);
  });

  it('takes a Redis on this host’s Unix socket (unix:///absolute/path) and refuses other schemes or a relative path', () => {
    const c = parseServiceEnv(writerEnvSchema, { ...base, QIM_REDIS_URL: 'unix:///var/run/redis/redis.sock' });
    expect(c.backend).toMatchObject({ kind: 'redis', redisUrl: 'unix:///var/run/redis/redis.sock', namespace: 'qim' });
    for (const bad of ['unix://redis.sock', 'unix:/var/run/redis.sock', 'http://127.0.0.1:6379', '127.0.0.1:6379']) {
      const e = refusal(writerEnvSchema, { ...base, QIM_REDIS_URL: bad });
      expect(variables(e)).toEqual(['QIM_REDIS_URL']);
      expect(e.issues[0]!.message).toContain('unix:///absolute/path');
    }
  });

  it('names a missing token and missing brokers', () => {
    const e = refusal(writerEnvSchema, { QIM_REDIS_URL: base.QIM_REDIS_URL });
    expect(variables(e)).toEqual(['QIM_KAFKA_BROKERS', 'QIM_SERVICE_TOKEN']);
    expect(e.message).toContain('QIM_SERVICE_TOKEN');
  });

  it('refuses an unknown backend instead of defaulting', () => {
    const e = refusal(writerEnvSchema, { ...base, QIM_STORE_BACKEND: 'mongo' });
    expect(variables(e)).toEqual(['QIM_STORE_BACKEND']);
    expect(e.issues[0]!.message).toContain('redis | scylla | memory');
  });

  it('allows memory only in development/test', () => {
    expect(variables(refusal(writerEnvSchema, { ...base, QIM_STORE_BACKEND: 'memory' }))).toEqual(['QIM_STORE_BACKEND']);
    expect(variables(refusal(writerEnvSchema, { ...base, QIM_STORE_BACKEND: 'memory', QIM_ENV: 'staging' }))).toEqual(['QIM_STORE_BACKEND']);
    const c = parseServiceEnv(writerEnvSchema, { ...base, QIM_STORE_BACKEND: 'memory', QIM_ENV: 'test' });
    expect(c.backend).toEqual({ kind: 'memory' });
    expect(c.coordination).toEqual({ kind: 'memory' });
  });

  it('requires every scylla variable in scylla mode, naming each', () => {
    const e = refusal(writerEnvSchema, { ...base, QIM_STORE_BACKEND: 'scylla' });
    expect(variables(e)).toEqual(['QIM_SCYLLA_DC', 'QIM_SCYLLA_HOSTS', 'QIM_SCYLLA_KEYSPACE', 'QIM_SCYLLA_RF']);
  });

  it('refuses RF < 3 in production and allows RF 1 in test', () => {
    const e = refusal(writerEnvSchema, { ...scylla, QIM_SCYLLA_RF: '1' });
    expect(variables(e)).toEqual(['QIM_SCYLLA_RF']);
    expect(e.issues[0]!.message).toMatch(/≥ 3/);
    const c = parseServiceEnv(writerEnvSchema, { ...scylla, QIM_SCYLLA_RF: '1', QIM_ENV: 'test' });
    expect(c.backend).toMatchObject({ kind: 'scylla', replicationFactor: 1, hosts: ['n1:9042', 'n2:9043'] });
  });

  it('needs Redis in scylla mode (leases, membership)', () => {
    const { QIM_REDIS_URL: _omit, ...noRedis } = scylla;
    expect(variables(refusal(writerEnvSchema, noRedis))).toEqual(['QIM_REDIS_URL']);
  });

  it('refuses malformed values and unknown QIM_* variables, ignores QIM_TEST_*', () => {
    const e = refusal(writerEnvSchema, {
      ...base,
      QIM_SCYLLA_KEYSPACE: 'Bad-Name',
      QIM_MAX_FANOUT: 'many',
      QIM_KAFKA_BROKERS: 'nohostport',
      QIM_TYPO_VARIABLE: '1',
      QIM_TEST_SCYLLA_ADDR: 'x',
    });
    expect(variables(e)).toEqual(['QIM_KAFKA_BROKERS', 'QIM_MAX_FANOUT', 'QIM_SCYLLA_KEYSPACE', 'QIM_TYPO_VARIABLE']);
  });

  it("ignores the qim CLI's own variables (a shell using the CLI can still start a service)", () => {
    expect(() =>
      parseServiceEnv(writerEnvSchema, { ...base, QIM_WRITER_URL: 'http://127.0.0.1:1', QIM_MAILBOX_URL: 'x', QIM_TENANT_ID: 'y', QIM_USER_ID: 'z' }),
    ).not.toThrow();
  });

  it('refuses a short token', () => {
    expect(variables(refusal(writerEnvSchema, { ...base, QIM_SERVICE_TOKEN: 'short' }))).toEqual(['QIM_SERVICE_TOKEN']);
  });

  it('accepts several tokens at once (QIM_SERVICE_TOKEN and the comma-separated QIM_SERVICE_TOKENS): rotation without downtime', () => {
    const next = 'the-next-service-token-0123';
    expect(parseServiceEnv(writerEnvSchema, base).serviceTokens).toEqual([base.QIM_SERVICE_TOKEN]);
    expect(parseServiceEnv(writerEnvSchema, { ...base, QIM_SERVICE_TOKENS: ` ${next} , another-token-abcdefghij ` }).serviceTokens).toEqual([
      base.QIM_SERVICE_TOKEN,
      next,
      'another-token-abcdefghij',
    ]);
    expect(parseServiceEnv(writerEnvSchema, { ...base, QIM_SERVICE_TOKENS: '' }).serviceTokens).toEqual([base.QIM_SERVICE_TOKEN]);
  });

  it('checks every token (length, characters a bearer header can carry); QIM_SERVICE_TOKEN stays required', () => {
    const { QIM_SERVICE_TOKEN: _, ...withoutOne } = base;
    expect(variables(refusal(writerEnvSchema, { ...withoutOne, QIM_SERVICE_TOKENS: 'the-next-service-token-0123' }))).toEqual(['QIM_SERVICE_TOKEN']);
    expect(variables(refusal(writerEnvSchema, { ...base, QIM_SERVICE_TOKENS: 'the-next-service-token-0123,short' }))).toEqual(['QIM_SERVICE_TOKENS']);
    expect(new Set(variables(refusal(writerEnvSchema, { ...base, QIM_SERVICE_TOKENS: 'the-next-service-token-0123,,x' })))).toEqual(
      new Set(['QIM_SERVICE_TOKENS']),
    );
    expect(variables(refusal(writerEnvSchema, { ...base, QIM_SERVICE_TOKEN: 'a token with spaces inside' }))).toEqual(['QIM_SERVICE_TOKEN']);
    const e = refusal(writerEnvSchema, { ...base, QIM_SERVICE_TOKENS: 'short' });
    expect(e.message).not.toContain('short');
  });
});

describe('mailbox environment', () => {
  it('requires shards and epoch', () => {
    expect(variables(refusal(mailboxEnvSchema, base))).toEqual(['QIM_MAILBOX_EPOCH', 'QIM_MAILBOX_SHARDS']);
  });

  it('resolves the mailbox settings', () => {
    const c = parseServiceEnv(mailboxEnvSchema, { ...base, ...mailbox, QIM_MAILBOX_RETENTION_DAYS: '2' });
    expect(c.shards).toBe(4);
    expect(c.epoch).toBe(0);
    expect(c.entryRetentionMs).toBe(2n * 86_400_000n);
    expect(c.kafka.dispatchTopic).toBe('qim.mailbox.dispatch');
    expect(c.shardGroup).toBe('qim-mailbox-shards-e0');
  });

  it('defaults the frontier settings and range-checks them', () => {
    const c = parseServiceEnv(mailboxEnvSchema, { ...base, ...mailbox });
    expect([c.dispatchDedupeMs, c.applyConcurrency, c.pageRecords, c.syncMaxWaitMs]).toEqual([8n * 86_400_000n, 64, 500, 30_000]);
    const set = parseServiceEnv(mailboxEnvSchema, {
      ...base,
      ...mailbox,
      QIM_DISPATCH_DEDUPE_MS: '120000',
      QIM_MAILBOX_APPLY_CONCURRENCY: '8',
      QIM_MAILBOX_PAGE_RECORDS: '1',
      QIM_SYNC_MAX_WAIT_MS: '0',
    });
    expect([set.dispatchDedupeMs, set.applyConcurrency, set.pageRecords, set.syncMaxWaitMs]).toEqual([120_000n, 8, 1, 0]);
    const bad = { QIM_DISPATCH_DEDUPE_MS: '1000', QIM_MAILBOX_APPLY_CONCURRENCY: '0', QIM_MAILBOX_PAGE_RECORDS: '10001', QIM_SYNC_MAX_WAIT_MS: '-1' };
    expect(variables(refusal(mailboxEnvSchema, { ...base, ...mailbox, ...bad }))).toEqual(Object.keys(bad).sort());
  });

  it('defaults the repeat hold to 250 ms, range-checks it and never lets it exceed the longest wait', () => {
    expect(parseServiceEnv(mailboxEnvSchema, { ...base, ...mailbox }).syncRepeatHoldMs).toBe(250);
    expect(parseServiceEnv(mailboxEnvSchema, { ...base, ...mailbox, QIM_SYNC_REPEAT_HOLD_MS: '0' }).syncRepeatHoldMs).toBe(0);
    expect(parseServiceEnv(mailboxEnvSchema, { ...base, ...mailbox, QIM_SYNC_REPEAT_HOLD_MS: '2000', QIM_SYNC_MAX_WAIT_MS: '500' }).syncRepeatHoldMs).toBe(500);
    for (const v of ['-1', '60001', '1.5', 'soon'])
      expect(variables(refusal(mailboxEnvSchema, { ...base, ...mailbox, QIM_SYNC_REPEAT_HOLD_MS: v }))).toEqual(['QIM_SYNC_REPEAT_HOLD_MS']);
  });

  it('defaults the Kafka offset-commit interval to 100 ms and range-checks it', () => {
    expect(parseServiceEnv(mailboxEnvSchema, { ...base, ...mailbox }).kafkaCommitIntervalMs).toBe(100);
    expect(parseServiceEnv(mailboxEnvSchema, { ...base, ...mailbox, QIM_KAFKA_COMMIT_INTERVAL_MS: '0' }).kafkaCommitIntervalMs).toBe(0);
    for (const v of ['-1', '10001', '0.5'])
      expect(variables(refusal(mailboxEnvSchema, { ...base, ...mailbox, QIM_KAFKA_COMMIT_INTERVAL_MS: v }))).toEqual(['QIM_KAFKA_COMMIT_INTERVAL_MS']);
  });

  it("defaults the consumers' fetch to answer at the first byte, waiting at most 100 ms; both range-checked", () => {
    const c = parseServiceEnv(mailboxEnvSchema, { ...base, ...mailbox });
    expect([c.kafkaFetchMinBytes, c.kafkaFetchMaxWaitMs]).toEqual([1, 100]);
    const set = parseServiceEnv(mailboxEnvSchema, { ...base, ...mailbox, QIM_KAFKA_FETCH_MIN_BYTES: '65536', QIM_KAFKA_FETCH_MAX_WAIT_MS: '10' });
    expect([set.kafkaFetchMinBytes, set.kafkaFetchMaxWaitMs]).toEqual([65_536, 10]);
    const bad = { QIM_KAFKA_FETCH_MIN_BYTES: '0', QIM_KAFKA_FETCH_MAX_WAIT_MS: '1001' };
    expect(variables(refusal(mailboxEnvSchema, { ...base, ...mailbox, ...bad }))).toEqual(Object.keys(bad).sort());
  });

  const admissionTitle =
    'holds sends while delivery is more than 10 s behind by default, finding the mailbox groups of its client id on the broker ' +
    '(no epoch of its own); 0 turns it off; range-checked';
  it(admissionTitle, () => {
    expect(parseServiceEnv(writerEnvSchema, base).admission).toEqual({
      maxLagMs: 10_000,
      pollMs: 500,
      waitMs: 1_000,
      stallMs: 5_000,
      light: { maxFanout: 20, entriesPerSecond: 2_000 },
      mailbox: { clientId: 'qim-mailbox', messagesTopic: 'qim.messages', dispatchTopic: 'qim.mailbox.dispatch' },
    });
    // One environment for both services: the mailbox's client id is the shared one; the epoch is not the writer's business.
    const shared = { ...base, QIM_KAFKA_CLIENT_ID: 'acme', QIM_MAILBOX_EPOCH: '3', QIM_TOPIC_MESSAGES: 'm', QIM_TOPIC_DISPATCH: 'd' };
    expect(parseServiceEnv(writerEnvSchema, shared).admission?.mailbox).toEqual({ clientId: 'acme', messagesTopic: 'm', dispatchTopic: 'd' });
    expect(parseServiceEnv(writerEnvSchema, { ...shared, QIM_ADMISSION_MAILBOX_CLIENT_ID: 'mbx' }).admission?.mailbox.clientId).toBe('mbx');
    const set = parseServiceEnv(writerEnvSchema, {
      ...base,
      QIM_ADMISSION_MAX_LAG_MS: '2000',
      QIM_ADMISSION_POLL_MS: '250',
      QIM_ADMISSION_WAIT_MS: '0',
    }).admission;
    expect([set?.maxLagMs, set?.pollMs, set?.waitMs, set?.stallMs]).toEqual([2_000, 250, 0, 1_000]);
    expect(parseServiceEnv(writerEnvSchema, { ...base, QIM_ADMISSION_STALL_MS: '60000' }).admission?.stallMs).toBe(60_000);
    expect(parseServiceEnv(writerEnvSchema, { ...base, QIM_ADMISSION_MAX_LAG_MS: '0' }).admission).toBeNull();
    // The light lane of a closed gate (decision 10): 0 turns it off; its budget must fit its largest send.
    expect(parseServiceEnv(writerEnvSchema, { ...base, QIM_ADMISSION_LIGHT_FANOUT: '0' }).admission?.light).toBeNull();
    expect(parseServiceEnv(writerEnvSchema, { ...base, QIM_ADMISSION_LIGHT_FANOUT: '5', QIM_ADMISSION_LIGHT_ENTRIES_PER_S: '50' }).admission?.light).toEqual({
      maxFanout: 5,
      entriesPerSecond: 50,
    });
    expect(variables(refusal(writerEnvSchema, { ...base, QIM_ADMISSION_LIGHT_FANOUT: '100', QIM_ADMISSION_LIGHT_ENTRIES_PER_S: '99' }))).toEqual([
      'QIM_ADMISSION_LIGHT_ENTRIES_PER_S',
    ]);
    expect(variables(refusal(writerEnvSchema, { ...base, QIM_ADMISSION_LIGHT_FANOUT: '-1', QIM_ADMISSION_LIGHT_ENTRIES_PER_S: '0' })).sort()).toEqual([
      'QIM_ADMISSION_LIGHT_ENTRIES_PER_S',
      'QIM_ADMISSION_LIGHT_FANOUT',
    ]);
    const bad = { QIM_ADMISSION_MAX_LAG_MS: '-1', QIM_ADMISSION_POLL_MS: '99', QIM_ADMISSION_WAIT_MS: '1.5', QIM_ADMISSION_STALL_MS: '-5' };
    expect(variables(refusal(writerEnvSchema, { ...base, ...bad }))).toEqual(Object.keys(bad).sort());
    // Writer-only, but one environment may serve both services: the mailbox takes and ignores them.
    expect(parseServiceEnv(mailboxEnvSchema, { ...base, ...mailbox, QIM_ADMISSION_MAX_LAG_MS: '1000' })).not.toHaveProperty('admission');
  });

  it('paces produce requests at 5 ms by default in both services; 0 turns it off; range-checked (0…100 ms)', () => {
    expect(parseServiceEnv(writerEnvSchema, base).kafka.producePaceMs).toBe(5);
    expect(parseServiceEnv(mailboxEnvSchema, { ...base, ...mailbox }).kafka.producePaceMs).toBe(5);
    expect(parseServiceEnv(writerEnvSchema, { ...base, QIM_KAFKA_PRODUCE_PACE_MS: '0' }).kafka.producePaceMs).toBe(0);
    for (const v of ['-1', '101', '1.5'])
      expect(variables(refusal(writerEnvSchema, { ...base, QIM_KAFKA_PRODUCE_PACE_MS: v }))).toEqual(['QIM_KAFKA_PRODUCE_PACE_MS']);
  });

  it("paces the consumers' fetches at 10 ms by default; 0 turns pacing off; range-checked", () => {
    expect(parseServiceEnv(mailboxEnvSchema, { ...base, ...mailbox }).kafkaFetchPaceMs).toBe(10);
    expect(parseServiceEnv(mailboxEnvSchema, { ...base, ...mailbox, QIM_KAFKA_FETCH_PACE_MS: '0' }).kafkaFetchPaceMs).toBe(0);
    for (const v of ['-1', '1001', '2.5'])
      expect(variables(refusal(mailboxEnvSchema, { ...base, ...mailbox, QIM_KAFKA_FETCH_PACE_MS: v }))).toEqual(['QIM_KAFKA_FETCH_PACE_MS']);
  });

  it('refuses the variables of the lane-watermark design (no floor or GC loops remain)', () => {
    const old = ['QIM_MAILBOX_CHUNK_SIZE', 'QIM_DISPATCH_GC_DELAY_MS', 'QIM_GC_INTERVAL_MS', 'QIM_GC_CUTOFF_MS', 'QIM_GC_BATCH', 'QIM_FLOOR_INTERVAL_MS'];
    expect(variables(refusal(mailboxEnvSchema, { ...base, ...mailbox, ...Object.fromEntries(old.map((k) => [k, '1000'])) }))).toEqual([...old].sort());
  });

  it('does not need Redis in scylla mode', () => {
    const { QIM_REDIS_URL: _omit, ...noRedis } = scylla;
    const c = parseServiceEnv(mailboxEnvSchema, { ...noRedis, ...mailbox });
    expect(c.backend.kind).toBe('scylla');
  });

  it('needs Redis in redis mode', () => {
    const { QIM_REDIS_URL: _omit, ...noRedis } = base;
    expect(variables(refusal(mailboxEnvSchema, { ...noRedis, ...mailbox }))).toEqual(['QIM_REDIS_URL']);
  });

  it('range-checks numbers', () => {
    expect(variables(refusal(mailboxEnvSchema, { ...base, QIM_MAILBOX_SHARDS: '0', QIM_MAILBOX_EPOCH: '70000' }))).toEqual([
      'QIM_MAILBOX_EPOCH',
      'QIM_MAILBOX_SHARDS',
    ]);
  });
});

describe('Scylla-only environment (operator CLI)', () => {
  const cluster = { QIM_SCYLLA_HOSTS: 'n1,n2:9043', QIM_SCYLLA_KEYSPACE: 'qim', QIM_SCYLLA_DC: 'dc1', QIM_SCYLLA_RF: '3' };

  it('resolves the cluster exactly like the services, and needs no token, brokers or backend choice', () => {
    const c = parseServiceEnv(scyllaEnvSchema, cluster);
    expect(c).toEqual({
      env: 'production',
      scylla: { kind: 'scylla', hosts: ['n1:9042', 'n2:9043'], keyspace: 'qim', localDataCenter: 'dc1', replicationFactor: 3 },
    });
    expect(parseServiceEnv(scyllaEnvSchema, { ...scylla, QIM_STORE_BACKEND: 'redis' }).scylla).toEqual(parseServiceEnv(writerEnvSchema, scylla).backend);
  });

  it('requires all four variables, naming each', () => {
    const e = refusal(scyllaEnvSchema, {});
    expect(variables(e)).toEqual(['QIM_SCYLLA_DC', 'QIM_SCYLLA_HOSTS', 'QIM_SCYLLA_KEYSPACE', 'QIM_SCYLLA_RF']);
  });

  it('refuses RF < 3 in production and allows RF 1 in test', () => {
    expect(refusal(scyllaEnvSchema, { ...cluster, QIM_SCYLLA_RF: '1' }).issues[0]!.message).toMatch(/≥ 3 when QIM_ENV=production/);
    expect(parseServiceEnv(scyllaEnvSchema, { ...cluster, QIM_SCYLLA_RF: '1', QIM_ENV: 'test' })).toMatchObject({
      env: 'test',
      scylla: { replicationFactor: 1 },
    });
  });

  it('refuses malformed values and unknown QIM_* variables', () => {
    expect(variables(refusal(scyllaEnvSchema, { ...cluster, QIM_SCYLLA_KEYSPACE: 'Bad-Name', QIM_SCYLA_DC: 'x' }))).toEqual([
      'QIM_SCYLA_DC',
      'QIM_SCYLLA_KEYSPACE',
    ]);
    expect(variables(refusal(scyllaEnvSchema, { ...cluster, QIM_SCYLLA_HOSTS: 'a b' }))).toEqual(['QIM_SCYLLA_HOSTS']);
  });
});
