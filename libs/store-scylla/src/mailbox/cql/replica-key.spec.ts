import type { Client } from 'cassandra-driver';
import { replicaSetOf } from './replica-key';

/** A client stub: `hosts.length` nodes, `getReplicas` answering `answer` and recording the key it was asked. */
function client(nodes: number, answer: { address: string }[] | null): { c: Client; asked: Buffer[] } {
  const asked: Buffer[] = [];
  const c = { hosts: { length: nodes }, getReplicas: (_ks: string, key: Buffer) => (asked.push(key), answer) } as unknown as Client;
  return { c, asked };
}

describe('replicaSetOf', () => {
  const a = Buffer.from([1, 2]);
  const b = Buffer.from([3]);

  it('names the replica set of the composite partition key, whatever order the driver lists it in', () => {
    const { c, asked } = client(3, [{ address: '10.0.0.2:9042' }, { address: '10.0.0.1:9042' }]);
    expect(replicaSetOf(c, 'ks', a, b)).toBe('10.0.0.1:9042,10.0.0.2:9042');
    // Each component: 2-byte length, bytes, 0 — the driver's routing key for ((a, b)).
    expect(asked).toEqual([Buffer.from([0, 2, 1, 2, 0, 0, 1, 3, 0])]);
  });

  it('one group for a single node (no hashing) and while the driver has no token map', () => {
    const single = client(1, [{ address: 'x' }]);
    expect(replicaSetOf(single.c, 'ks', a, b)).toBe('');
    expect(single.asked).toEqual([]);
    expect(replicaSetOf(client(3, null).c, 'ks', a, b)).toBe('');
  });
});
