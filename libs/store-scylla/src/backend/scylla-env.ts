import type { BackendEnvContext } from '@qim/store-core';
import { hostList, optionalIntField, optionalString } from '@qim/store-core';
import { z } from 'zod';

/** The Scylla variables, read alike by both services and the operator CLI (`QIM_ENV` sets the RF floor). */
export const scyllaEnvShape = {
  QIM_SCYLLA_HOSTS: optionalString().describe('scylla mode: contact points `host[:port],…` (port 9042 when not given)'),
  QIM_SCYLLA_KEYSPACE: optionalString()
    .pipe(
      z
        .string()
        .regex(/^[a-z][a-z0-9_]{0,47}$/, 'must match [a-z][a-z0-9_]{0,47}')
        .optional(),
    )
    .describe('scylla mode: keyspace, `[a-z][a-z0-9_]{0,47}`'),
  QIM_SCYLLA_DC: optionalString().describe('scylla mode: the local data center'),
  QIM_SCYLLA_RF: optionalIntField(1, 15).describe('scylla mode: replication factor (1…15); below 3 only with `QIM_ENV=development|test`'),
} as const;

type ScyllaRaw = { readonly [K in keyof typeof scyllaEnvShape]?: z.output<(typeof scyllaEnvShape)[K]> };

/** The Scylla/Cassandra cluster the store uses, from `QIM_SCYLLA_*`. */
export interface ScyllaBackendConfig {
  readonly kind: 'scylla';
  /** `host:port` contact points (port 9042 when not given). */
  readonly hosts: readonly string[];
  readonly keyspace: string;
  readonly localDataCenter: string;
  readonly replicationFactor: number;
}

const SCYLLA_VARIABLES = ['QIM_SCYLLA_HOSTS', 'QIM_SCYLLA_KEYSPACE', 'QIM_SCYLLA_DC', 'QIM_SCYLLA_RF'] as const;

/**
 * The Scylla cross-variable rules: all four variables are required (`requiredBy` says by whom), and
 * RF < 3 only with `QIM_ENV=development|test`. Returns null after reporting every issue on `ctx`.
 */
export function resolveScylla(raw: ScyllaRaw, ctx: BackendEnvContext, requiredBy: string): ScyllaBackendConfig | null {
  const issue = (variable: string, message: string) => ctx.issue(variable, message);
  const missing = SCYLLA_VARIABLES.filter((k) => raw[k] === undefined);
  for (const k of missing) issue(k, `required ${requiredBy}`);
  const rf = raw.QIM_SCYLLA_RF;
  if (rf !== undefined && rf < 3 && !ctx.development) {
    issue('QIM_SCYLLA_RF', `must be ≥ 3 when QIM_ENV=${ctx.env} (got ${rf}; only development|test may use less)`);
    return null;
  }
  const hosts = raw.QIM_SCYLLA_HOSTS === undefined ? null : hostList(9042).safeParse(raw.QIM_SCYLLA_HOSTS);
  if (hosts?.success === false) issue('QIM_SCYLLA_HOSTS', hosts.error.issues.map((i) => i.message).join(', '));
  if (missing.length > 0 || !hosts?.success) return null;
  return { kind: 'scylla', hosts: hosts.data, keyspace: raw.QIM_SCYLLA_KEYSPACE!, localDataCenter: raw.QIM_SCYLLA_DC!, replicationFactor: rf! };
}
