import { StoreError } from '@qim/store-core';

/**
 * `migrate` refused the cluster's schema (wrong RF or DC, tablets, a column of another type, an
 * invalid keyspace). Startup stops with this reason; nothing was altered.
 */
export class SchemaRefusedError extends StoreError {
  readonly code = 'SCHEMA_REFUSED' as const;
  constructor(readonly reasons: readonly string[]) {
    super(`scylla schema refused: ${reasons.join('; ')}`);
  }
}
