import { InvalidInputError } from '@qim/store-core';
import { developmentScyllaConfig } from '../config/scylla-config';
import type { ScyllaConfig } from '../config/scylla-config';

/** The variables of the isolated Scylla/Cassandra cluster used by the gate. */
export const TEST_ENV_VARS = ['QIM_TEST_SCYLLA_ADDR', 'QIM_TEST_SCYLLA_KEYSPACE', 'QIM_TEST_SCYLLA_DC', 'QIM_TEST_SCYLLA_RF'] as const;

/**
 * Reads the gate's cluster from `QIM_TEST_SCYLLA_ADDR` (comma-separated `host[:port]`),
 * `QIM_TEST_SCYLLA_KEYSPACE`, `QIM_TEST_SCYLLA_DC` and `QIM_TEST_SCYLLA_RF`. Any missing or empty
 * variable throws (the gate fails loudly; it never skips). `keyspaceSuffix` makes a per-run keyspace.
 */
export function scyllaTestConfigFromEnv(env: NodeJS.ProcessEnv = process.env, keyspaceSuffix = ''): ScyllaConfig {
  const missing = TEST_ENV_VARS.filter((name) => (env[name] ?? '').trim() === '');
  if (missing.length > 0) {
    throw new InvalidInputError(`the Scylla gate needs ${missing.join(', ')} (run: eval "$(tools/infra/infra env)")`);
  }
  const rfText = (env['QIM_TEST_SCYLLA_RF'] ?? '').trim();
  if (!/^[1-9][0-9]?$/.test(rfText)) throw new InvalidInputError(`QIM_TEST_SCYLLA_RF must be a positive integer, got ${JSON.stringify(rfText)}`);
  return developmentScyllaConfig({
    contactPoints: (env['QIM_TEST_SCYLLA_ADDR'] ?? '').split(','),
    keyspace: `${(env['QIM_TEST_SCYLLA_KEYSPACE'] ?? '').trim()}${keyspaceSuffix}`,
    localDataCenter: (env['QIM_TEST_SCYLLA_DC'] ?? '').trim(),
    replicationFactor: Number(rfText),
  });
}
