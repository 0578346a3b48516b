import { InvalidInputError } from '@qim/store-core';

/**
 * Where the stores' Redis is: a standalone server's URL (`redis://[user:pass@]host:port[/db]`,
 * `rediss://` for TLS, `unix:///path`), or a Redis Cluster given by some of its nodes.
 */
export type RedisTarget = string | RedisClusterTarget;

/** A Redis Cluster: seed nodes (any subset of the cluster; the client discovers the rest), TLS and credentials shared by every node. */
export interface RedisClusterTarget {
  readonly clusterNodes: readonly { readonly host: string; readonly port: number }[];
  /** Connect to every node with TLS (`rediss://` in the node list). */
  readonly tls: boolean;
  readonly username?: string;
  readonly password?: string;
}

/**
 * Parses the one documented cluster form, `[redis[s]://[user:password@]]host:port,host:port,…`:
 * seed nodes as `host:port`, optionally preceded by the scheme (`rediss://` = TLS) and the
 * credentials, which apply to every node. Anything else → `InvalidInputError` naming the entry.
 */
export function parseClusterNodes(text: string): RedisClusterTarget {
  const m = /^(rediss?):\/\/(?:([^:@/]*)(?::([^@/]*))?@)?(.*)$/.exec(text.trim());
  const list = m === null ? text.trim() : m[4]!;
  const clusterNodes = list.split(',').map((entry) => {
    const hp = /^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:]+\]):(\d{1,5})$/.exec(entry.trim());
    const port = hp === null ? NaN : Number(hp[2]);
    if (hp === null || port < 1 || port > 65_535) throw new InvalidInputError(`redis cluster node '${entry}' is not host:port`);
    return { host: hp[1]!.replace(/^\[(.*)\]$/, '$1'), port };
  });
  const username = m?.[2] ? decodeURIComponent(m[2]) : undefined;
  const password = m?.[3] !== undefined ? decodeURIComponent(m[3]) : undefined;
  return {
    clusterNodes,
    tls: m?.[1] === 'rediss',
    ...(username === undefined ? {} : { username }),
    ...(password === undefined ? {} : { password }),
  };
}

/** Where a target points, for messages (no credentials). */
export function targetWhere(target: RedisTarget): string {
  if (typeof target !== 'string') return `cluster ${target.clusterNodes.map((n) => `${n.host}:${n.port}`).join(',')}`;
  const u = new URL(target);
  return u.protocol === 'unix:' ? u.pathname : u.host;
}
