import type { z } from 'zod';
import type { ConfigIssue } from './config-error';
import { ConfigError } from './config-error';
import type { BackendEnv } from '@qim/store-core';
import { commonEnvShape } from './service-env';
import { MAILBOX_VARIABLES, WRITER_VARIABLES } from './service-variables';

/** Every QIM_* variable either service reads, the backends' included. `QIM_TEST_*` belong to test gates and are not listed. */
export function qimVariables(backends: BackendEnv): ReadonlySet<string> {
  return new Set([...Object.keys(commonEnvShape), ...WRITER_VARIABLES, ...MAILBOX_VARIABLES, ...Object.keys(backends.shape)]);
}

/**
 * Variables of the `qim` client CLI (`apps/cli`). A shell that uses the CLI exports them; the services
 * ignore them rather than refuse to start (they are not misspellings of a service variable).
 */
export const CLIENT_QIM_VARIABLES: ReadonlySet<string> = new Set(['QIM_WRITER_URL', 'QIM_MAILBOX_URL', 'QIM_TENANT_ID', 'QIM_USER_ID']);

/**
 * Parses the QIM_* variables of `env` with a service schema. Names outside `known` (typos) are
 * refused too, so a misspelt variable never silently falls back to a default.
 * Throws `ConfigError` naming each refused variable.
 */
export function parseEnv<S extends z.ZodType>(schema: S, env: Readonly<Record<string, string | undefined>>, known: ReadonlySet<string>): z.output<S> {
  const picked: Record<string, string> = {};
  const issues: ConfigIssue[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('QIM_') || name.startsWith('QIM_TEST_') || CLIENT_QIM_VARIABLES.has(name) || value === undefined) continue;
    if (!known.has(name)) issues.push({ variable: name, message: 'unknown QIM_* variable' });
    else picked[name] = value;
  }
  const parsed = schema.safeParse(picked);
  if (!parsed.success) {
    for (const i of parsed.error.issues) {
      const variable = String(i.path[0] ?? 'environment');
      const absent = picked[variable] === undefined && i.code === 'invalid_type';
      issues.push({ variable, message: absent ? 'is required' : i.message });
    }
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return parsed.data as z.output<S>;
}
