/** The literal keyspace token used in table and statement CQL. */
export const KEYSPACE_TOKEN = '{ks}';

/** Replaces every `{ks}` token with the (already validated) keyspace name. */
export function qualify(cql: string, keyspace: string): string {
  return cql.split(KEYSPACE_TOKEN).join(keyspace);
}
