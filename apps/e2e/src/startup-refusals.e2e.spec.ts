import { requireEnv, runEnv } from './support/e2e-env';
import { serviceEntries } from './support/build-services';
import { redisKeys } from './support/redis-probe';
import { runToExit } from '@qim/service-stack';

/**
 * Fail-closed start-up: each refusal exits non-zero, names its reason, and writes nothing to Redis
 * (checked by scanning the run's own key namespace).
 */
describe('start-up refusals', () => {
  const entries = serviceEntries();
  const redisUrl = requireEnv('QIM_REDIS_URL');
  const scylla = {
    QIM_STORE_BACKEND: 'scylla',
    QIM_SCYLLA_HOSTS: '127.0.0.1:1',
    QIM_SCYLLA_KEYSPACE: 'qim_refusal',
    QIM_SCYLLA_DC: 'datacenter1',
    QIM_SCYLLA_RF: '1',
  };

  const cases: [string, 'writer' | 'mailbox', Record<string, string>, number, RegExp][] = [
    ['scylla without QIM_SCYLLA_DC', 'writer', { ...scylla, QIM_SCYLLA_DC: '' }, 2, /QIM_SCYLLA_DC/],
    ['RF 1 in production', 'writer', { ...scylla, QIM_ENV: 'production' }, 2, /QIM_SCYLLA_RF.*≥ 3/],
    ['an unknown backend', 'mailbox', { QIM_STORE_BACKEND: 'cassandra' }, 2, /QIM_STORE_BACKEND.*redis \| scylla \| memory/],
    ['memory in production', 'mailbox', { QIM_STORE_BACKEND: 'memory', QIM_ENV: 'production' }, 2, /memory is allowed only/],
    ['no service token', 'writer', { QIM_SERVICE_TOKEN: '' }, 2, /QIM_SERVICE_TOKEN/],
    ['unreachable scylla hosts', 'writer', scylla, 1, /start-up refused: CQL unavailable: All host\(s\) tried/],
    ['unreachable scylla hosts', 'mailbox', scylla, 1, /start-up refused: CQL unavailable: All host\(s\) tried/],
  ];

  it.each(cases)('refuses %s (%s)', async (_name, service, overrides, code, reason) => {
    const env = runEnv(overrides);
    const { code: exitCode, output } = await runToExit(service, entries[service], env, [], 90_000);
    expect({ code: exitCode, reason: reason.test(output) ? 'named' : output.slice(-2000) }).toEqual({ code, reason: 'named' });
    expect(await redisKeys(redisUrl, `${env['QIM_REDIS_NAMESPACE']}:*`)).toEqual([]);
  });
});
