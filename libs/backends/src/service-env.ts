import { parseEnv, qimVariables } from '@qim/service-kit';
import type { QimEnv } from '@qim/store-core';
import { qimEnvShape } from '@qim/store-core';
import type { ScyllaBackendConfig } from '@qim/store-scylla';
import { resolveScylla, scyllaEnvShape } from '@qim/store-scylla';
import { z } from 'zod';
import { BACKEND_ENV } from './backend-env';

/**
 * Every QIM_* variable a service reads (an env file may serve both services). The services' own
 * schemas live in their runtimes (`writerEnvSchema`, `mailboxEnvSchema`), over `BACKEND_ENV`.
 */
export const QIM_VARIABLES: ReadonlySet<string> = qimVariables(BACKEND_ENV);

/** Parses a service's (or tool's) variables; an unknown QIM_* name is refused (`ConfigError`). */
export function parseServiceEnv<S extends z.ZodType>(schema: S, env: Readonly<Record<string, string | undefined>>): z.output<S> {
  return parseEnv(schema, env, QIM_VARIABLES);
}

/** What a Scylla-only tool (the operator CLI) needs: the cluster and the environment. */
export interface ScyllaEnvConfig {
  readonly env: QimEnv;
  readonly scylla: ScyllaBackendConfig;
}

/**
 * Environment schema of a Scylla-only tool: the services' Scylla rules, with all four
 * `QIM_SCYLLA_*` variables required whatever `QIM_STORE_BACKEND` says. Use with `parseServiceEnv`.
 */
export const scyllaEnvSchema = z.object({ ...qimEnvShape, ...scyllaEnvShape }).transform((raw, ctx): ScyllaEnvConfig => {
  const issue = (variable: string, message: string) => ctx.addIssue({ code: 'custom', path: [variable], message });
  const development = raw.QIM_ENV === 'development' || raw.QIM_ENV === 'test';
  const scylla = resolveScylla(raw, { env: raw.QIM_ENV, development, issue }, 'by the Scylla admin commands');
  return scylla === null ? z.NEVER : { env: raw.QIM_ENV, scylla };
});
