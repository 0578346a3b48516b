import type { Client, Host } from 'cassandra-driver';

/**
 * The serialized partition key of a two-blob key `((a, b))` as the driver routes it (each component:
 * 2-byte length, bytes, a 0 byte), so `client.getReplicas` finds the nodes that own it.
 */
function compositeKey(a: Buffer, b: Buffer): Buffer {
  const out = Buffer.alloc(a.length + b.length + 6);
  out.writeUInt16BE(a.length, 0);
  a.copy(out, 2);
  out.writeUInt16BE(b.length, a.length + 3);
  b.copy(out, a.length + 5);
  return out;
}

/**
 * A name for the replica set owning partition `((a, b))` of `keyspace`: rows whose names are equal
 * can share one unlogged batch without the coordinator forwarding any of them to a node that is not
 * already a replica of the batch's first row. '' on a single node or when the driver has no token
 * map yet (every row shares the one group).
 */
export function replicaSetOf(client: Client, keyspace: string, a: Buffer, b: Buffer): string {
  // One node owns everything: skip hashing the key (the driver's murmur3 is a visible share of a page's CPU).
  if (client.hosts.length <= 1) return '';
  // The typings promise an array; the driver answers null before it has loaded the keyspace's token map.
  const hosts = client.getReplicas(keyspace, compositeKey(a, b)) as Host[] | null;
  return hosts === null
    ? ''
    : hosts
        .map((h) => h.address)
        .sort()
        .join(',');
}
