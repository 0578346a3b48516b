import { InvalidInputError } from '@qim/store-core';
import { developmentScyllaConfig } from '../config/scylla-config';
import { createClient, nativePortOf } from './scylla-session';

describe('the native port of discovered nodes', () => {
  it('follows the port the contact points name, so peers of a 9043 cluster are not looked for on 9042', () => {
    expect(nativePortOf(['127.0.0.1:9043', '127.0.0.2:9043'])).toBe(9043);
    expect(nativePortOf(['127.0.0.1'])).toBeUndefined();
    const client = createClient(
      developmentScyllaConfig({ contactPoints: ['127.0.0.1:9043', '127.0.0.2:9043'], localDataCenter: 'dc1', keyspace: 'ks', replicationFactor: 3 }),
    );
    const { options } = client as unknown as { options: { protocolOptions?: { port?: number } } };
    expect(options.protocolOptions?.port).toBe(9043);
  });

  it('refuses contact points that name different ports', () => {
    expect(() => nativePortOf(['127.0.0.1:9042', '127.0.0.2:9043'])).toThrow(InvalidInputError);
  });
});
