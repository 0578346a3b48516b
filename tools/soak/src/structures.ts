/** Names of the stored structures the census reports, and which of them grow by design. Pure. */

export type BackendKind = 'memory' | 'redis' | 'scylla';

/**
 * The structure a Redis key belongs to: the namespace dropped, hash-tag contents and ids replaced,
 * e.g. `ns:{mu:…}:entry:00ab…` → `{mu}:entry`, `ns:{cs:3}:aux` → `{cs}:aux`.
 */
export function redisStructureOf(namespace: string, key: string): string {
  const rest = key.startsWith(`${namespace}:`) ? key.slice(namespace.length + 1) : key;
  return rest
    .replace(/\{([A-Za-z]+):[^}]*\}/g, '{$1}')
    .split(':')
    .filter((part) => !/^[0-9a-f]{6,}$/.test(part) && !/^\d+$/.test(part))
    .join(':');
}

/**
 * Structures that grow by design: the history of default-retention messages (records and their
 * index rows are kept forever; only ephemeral ones expire). Every other structure must be flat
 * once the retention and dedupe windows have passed.
 */
export function growsByDesign(backend: BackendKind, name: string): boolean {
  switch (backend) {
    case 'memory':
      return name === 'message_record' || name === 'history_index';
    case 'scylla':
      return name === 'message_record' || name === 'history_index' || name === 'history_by_seq';
    case 'redis':
      return /^\{cv\}:(rec|index) /.test(name);
  }
}
