import { randomBytes } from 'node:crypto';

/** A required variable of the e2e run; missing → the spec FAILS (never skips) and says how to get it. */
export function requireEnv(name: string): string {
  const v = process.env[name];
  if (v === undefined || v.trim() === '') {
    throw new Error(`${name} is not set: run \`tools/infra/infra up redis kafka\` and \`eval "$(tools/infra/infra env)"\` (e2e specs never skip)`);
  }
  return v.trim();
}

export const TOKEN = 'e2e-service-token-0123456789abcdef';

/**
 * The environment both services share in one isolated e2e run: its own Redis namespace, topics and
 * consumer groups, so runs never see each other's data.
 */
export function runEnv(overrides: Record<string, string> = {}): Record<string, string> {
  const run = randomBytes(4).toString('hex');
  return {
    QIM_ENV: 'test',
    QIM_STORE_BACKEND: 'redis',
    QIM_SERVICE_TOKEN: TOKEN,
    QIM_REDIS_URL: requireEnv('QIM_REDIS_URL'),
    QIM_REDIS_NAMESPACE: `qime2e-${run}`,
    QIM_KAFKA_BROKERS: requireEnv('QIM_KAFKA_BROKERS'),
    QIM_KAFKA_CLIENT_ID: `qime2e-${run}`,
    QIM_TOPIC_MESSAGES: `qime2e.${run}.messages`,
    QIM_TOPIC_DISPATCH: `qime2e.${run}.dispatch`,
    QIM_MESSAGES_PARTITIONS: '2',
    QIM_MAILBOX_SHARDS: '2',
    QIM_MAILBOX_EPOCH: '1',
    QIM_RECOVERY_INTERVAL_MS: '500',
    QIM_SEND_DEADLINE_MS: '5000',
    QIM_RECOVERY_GRACE_MS: '6000',
    QIM_LEASE_TTL_MS: '3000',
    QIM_LOG_LEVEL: 'info',
    ...overrides,
  };
}

export const hex = (n: number): string => n.toString(16).padStart(32, '0');

/** Scylla-mode overrides from the isolated test cluster (`QIM_TEST_SCYLLA_*`), a fresh keyspace per run. */
export function scyllaOverrides(): Record<string, string> {
  return {
    QIM_STORE_BACKEND: 'scylla',
    QIM_SCYLLA_HOSTS: requireEnv('QIM_TEST_SCYLLA_ADDR'),
    QIM_SCYLLA_DC: requireEnv('QIM_TEST_SCYLLA_DC'),
    QIM_SCYLLA_RF: requireEnv('QIM_TEST_SCYLLA_RF'),
    QIM_SCYLLA_KEYSPACE: `qim_e2e_${randomBytes(4).toString('hex')}`,
  };
}
