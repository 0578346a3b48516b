import { ConfigError } from '@qim/service-kit';
import type { ConfigIssue } from '@qim/service-kit';
import { QIM_ENVS } from '@qim/store-core';
import type { BackendTestKit, TestOpenOptions, TestStores } from '@qim/store-core/testing';
import { memoryTestKit } from '@qim/store-memory/testing';
import type { MemoryInspection } from '@qim/store-memory/testing';
import { redisTestKit } from '@qim/store-redis/testing';
import type { RedisInspection } from '@qim/store-redis/testing';
import { scyllaTestKit } from '@qim/store-scylla/testing';
import type { ScyllaInspection } from '@qim/store-scylla/testing';
import { z } from 'zod';
import { STORE_BACKENDS, moduleOf } from '../registry';
import type { BackendConfig, StoreBackendKind } from '../registry';

/**
 * Every backend's test kit, one line each, beside `BACKEND_MODULES` (docs/adding-a-backend.md): how
 * the soak and the benchmarks open its stores with the options a service never sets, and look
 * below them.
 */
export const BACKEND_TEST_KITS = [redisTestKit, scyllaTestKit, memoryTestKit] as const;

/** What a kit lets a test see below the store ports, told apart by `kind`. */
export type StoreInspection = MemoryInspection | RedisInspection | ScyllaInspection;
export type InspectionOf<K extends StoreBackendKind> = Extract<StoreInspection, { readonly kind: K }>;
export type ConfigOfKind<K extends StoreBackendKind> = Extract<BackendConfig, { readonly kind: K }>;

/**
 * The settings of backend `kind` from `env`, parsed as the services parse them: the module's own
 * variables and rules (Redis: `QIM_REDIS_URL` or `QIM_REDIS_CLUSTER_NODES`, never both, TLS and
 * credentials in the URL or the node list, `QIM_REDIS_MIN_REPLICA_ACKS`; Scylla: `QIM_SCYLLA_*`).
 * `QIM_ENV` is `test` when unset (a tool, not a service); other `QIM_*` variables are the tool's own
 * and ignored here. A refused or missing variable → `ConfigError` naming each.
 */
export function backendConfigFromEnv<K extends StoreBackendKind>(kind: K, env: Readonly<Record<string, string | undefined>> = process.env): ConfigOfKind<K> {
  const m = moduleOf({ kind });
  const qimEnv = env['QIM_ENV'] === undefined || env['QIM_ENV'].trim() === '' ? 'test' : env['QIM_ENV'];
  const issues: ConfigIssue[] = [];
  if (!(QIM_ENVS as readonly string[]).includes(qimEnv)) issues.push({ variable: 'QIM_ENV', message: `must be one of ${QIM_ENVS.join(', ')}` });
  const picked: Record<string, string> = {};
  for (const name of Object.keys(m.envShape)) {
    const v = env[name];
    if (v !== undefined) picked[name] = v;
  }
  const parsed = z.object(m.envShape).safeParse(picked);
  if (!parsed.success) for (const i of parsed.error.issues) issues.push({ variable: String(i.path[0] ?? 'environment'), message: i.message });
  if (issues.length > 0) throw new ConfigError(issues);
  const ctx = {
    env: qimEnv,
    development: qimEnv === 'development' || qimEnv === 'test',
    issue: (variable: string, message: string) => issues.push({ variable, message }),
  };
  const cfg = m.resolve(parsed.data as Record<string, unknown>, ctx, `for this tool with backend ${kind}`);
  if (cfg === null || issues.length > 0)
    throw new ConfigError(issues.length > 0 ? issues : [{ variable: 'QIM_STORE_BACKEND', message: `${kind} could not be resolved` }]);
  return cfg as ConfigOfKind<K>;
}

/**
 * Opens `cfg`'s stores for the soak or a benchmark through its backend's test kit: the stores on
 * `opts.clock` with `opts.tuning`, and the kit's inspection seam. Not for services (they open
 * through `openMessageBackend` / `openMailboxBackend`, with readiness).
 */
export async function openTestStores<C extends BackendConfig>(cfg: C, opts: TestOpenOptions): Promise<TestStores<InspectionOf<C['kind']>>> {
  const kit = BACKEND_TEST_KITS.find((k) => k.kind === cfg.kind);
  if (kit === undefined) throw new Error(`no test kit for backend ${cfg.kind} (registered: ${STORE_BACKENDS.join(', ')})`);
  return (kit as unknown as BackendTestKit<C, InspectionOf<C['kind']>>).open(cfg, opts);
}
