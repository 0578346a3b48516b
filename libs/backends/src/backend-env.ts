import type { BackendEnv, BackendSelection, EnvShape } from '@qim/store-core';
import { choice } from '@qim/store-core';
import { BACKEND_MODULES, COORDINATION_FALLBACK, STORE_BACKENDS, moduleOf } from './registry';

const notDurable = BACKEND_MODULES.filter((m) => !m.capabilities.durable).map((m) => m.kind);

/** `QIM_STORE_BACKEND` and every registered backend's variables. */
const shape: EnvShape = Object.freeze(
  Object.assign(
    {
      QIM_STORE_BACKEND: choice(STORE_BACKENDS, STORE_BACKENDS[0]).describe(
        `${STORE_BACKENDS.map((k) => `\`${k}\``).join(' | ')} (${notDurable.join(', ')} only with \`QIM_ENV=development|test\`); ` +
          `any other value is refused, never a fallback`,
      ),
    },
    ...BACKEND_MODULES.map((m) => m.envShape),
  ),
);

/**
 * The backends' part of the services' environment: the chosen module resolves its own variables
 * (memory refuses production; redis needs its URL; scylla hosts, keyspace, DC and RF).
 */
export const BACKEND_ENV: BackendEnv = {
  shape,
  resolve: (raw, ctx) => {
    const kind = raw['QIM_STORE_BACKEND'] as string;
    return moduleOf({ kind }).resolve(raw, ctx, `when QIM_STORE_BACKEND=${kind}`);
  },
  coordination: (raw, backend: BackendSelection, ctx) => {
    if (moduleOf(backend).capabilities.coordination) return backend;
    return COORDINATION_FALLBACK.resolve(raw, ctx, `by the writer in ${backend.kind} mode (leases, membership)`);
  },
};
