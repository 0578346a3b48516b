import { isolatedEnv } from '@qim/service-stack';
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
 * The environment both services share in one isolated e2e run (@qim/service-stack `isolatedEnv`:
 * its own Redis namespace, topics and consumer groups, so runs never see each other's data).
 */
export function runEnv(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    ...isolatedEnv('qime2e', randomBytes(4).toString('hex'), TOKEN),
    QIM_REDIS_URL: requireEnv('QIM_REDIS_URL'),
    QIM_KAFKA_BROKERS: requireEnv('QIM_KAFKA_BROKERS'),
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
