import type { BackendModule, BackendSelection } from '@qim/store-core';
import { memoryBackendModule } from '@qim/store-memory';
import { redisBackendModule } from '@qim/store-redis';
import { scyllaBackendModule } from '@qim/store-scylla';

/**
 * Every backend, one line each (docs/adding-a-backend.md). `QIM_STORE_BACKEND` names one by its
 * `kind`; the first is the default.
 */
export const BACKEND_MODULES = [redisBackendModule, scyllaBackendModule, memoryBackendModule] as const;

/**
 * Where the writer keeps its coordination (membership, writer-id leases, recovery claims) when the
 * chosen backend keeps none (`capabilities.coordination` false): its variables are then required by the writer.
 */
export const COORDINATION_FALLBACK = redisBackendModule;

type ConfigOf<M> = M extends BackendModule<infer C> ? C : never;

/** The settings of any registered backend, told apart by `kind`. */
export type BackendConfig = ConfigOf<(typeof BACKEND_MODULES)[number]>;

/** The values `QIM_STORE_BACKEND` accepts. */
export const STORE_BACKENDS = BACKEND_MODULES.map((m) => m.kind) as unknown as readonly [BackendConfig['kind'], ...BackendConfig['kind'][]];
export type StoreBackendKind = BackendConfig['kind'];

/** The module of `selection.kind`; an unregistered kind is a programming error (the config refuses it first). */
export function moduleOf(selection: BackendSelection): BackendModule {
  const m = BACKEND_MODULES.find((x) => x.kind === selection.kind);
  if (m === undefined) throw new Error(`no backend module for kind ${selection.kind} (registered: ${STORE_BACKENDS.join(', ')})`);
  return m as unknown as BackendModule;
}
