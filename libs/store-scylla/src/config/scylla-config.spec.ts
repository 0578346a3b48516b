import { InvalidInputError } from '@qim/store-core';
import { productionScyllaConfig, developmentScyllaConfig } from './scylla-config';
import { scyllaTestConfigFromEnv } from '../testing/scylla-test-env';

const good = { contactPoints: ['10.0.0.1:9042', 'db2'], keyspace: 'qim_prod', localDataCenter: 'dc1', replicationFactor: 3 };

describe('ScyllaConfig', () => {
  it('production accepts RF ≥ 3 and freezes the result', () => {
    const c = productionScyllaConfig(good);
    expect(c).toEqual({ ...good, mode: 'production' });
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.contactPoints)).toBe(true);
  });

  it.each([
    ['RF 2', { ...good, replicationFactor: 2 }],
    ['RF 1', { ...good, replicationFactor: 1 }],
    ['RF 0', { ...good, replicationFactor: 0 }],
    ['fractional RF', { ...good, replicationFactor: 3.5 }],
    ['empty DC', { ...good, localDataCenter: '' }],
    ['blank DC', { ...good, localDataCenter: '   ' }],
    ['uppercase keyspace', { ...good, keyspace: 'Qim' }],
    ['keyspace starting with a digit', { ...good, keyspace: '1qim' }],
    ['keyspace with a dash', { ...good, keyspace: 'qim-prod' }],
    ['keyspace of 49 chars', { ...good, keyspace: `q${'x'.repeat(48)}` }],
    ['CQL injection in keyspace', { ...good, keyspace: 'qim; DROP KEYSPACE x' }],
    ['no contact point', { ...good, contactPoints: [] }],
    ['empty contact point', { ...good, contactPoints: [''] }],
    ['contact point with spaces', { ...good, contactPoints: ['a b'] }],
  ])('production rejects %s', (_name, input) => {
    expect(() => productionScyllaConfig(input)).toThrow(InvalidInputError);
  });

  it('accepts a 48-char keyspace', () => {
    expect(productionScyllaConfig({ ...good, keyspace: `q${'x'.repeat(47)}` }).keyspace).toHaveLength(48);
  });

  it('the explicit test/development constructor allows RF 1 but keeps every other check', () => {
    expect(developmentScyllaConfig({ ...good, replicationFactor: 1 }).mode).toBe('test');
    expect(() => developmentScyllaConfig({ ...good, replicationFactor: 0 })).toThrow(InvalidInputError);
    expect(() => developmentScyllaConfig({ ...good, keyspace: 'Bad' })).toThrow(InvalidInputError);
    expect(() => developmentScyllaConfig({ ...good, localDataCenter: '' })).toThrow(InvalidInputError);
  });
});

describe('scyllaTestConfigFromEnv', () => {
  const env = { QIM_TEST_SCYLLA_ADDR: '127.0.0.1:9042', QIM_TEST_SCYLLA_KEYSPACE: 'qim_test', QIM_TEST_SCYLLA_DC: 'datacenter1', QIM_TEST_SCYLLA_RF: '1' };

  it('reads all four variables (and appends a per-run suffix to the keyspace)', () => {
    expect(scyllaTestConfigFromEnv(env, '_ab12')).toEqual({
      contactPoints: ['127.0.0.1:9042'],
      keyspace: 'qim_test_ab12',
      localDataCenter: 'datacenter1',
      replicationFactor: 1,
      mode: 'test',
    });
  });

  it.each(Object.keys(env))('fails loudly when %s is missing or empty', (name) => {
    expect(() => scyllaTestConfigFromEnv({ ...env, [name]: undefined })).toThrow(new RegExp(name));
    expect(() => scyllaTestConfigFromEnv({ ...env, [name]: ' ' })).toThrow(new RegExp(name));
  });

  it('rejects a non-numeric RF', () => {
    expect(() => scyllaTestConfigFromEnv({ ...env, QIM_TEST_SCYLLA_RF: 'three' })).toThrow(InvalidInputError);
  });
});
