import type { BackendReadiness } from '@qim/store-core';

/** The Memory stores' readiness: in-process tables are always there (and say they are not durable). */
export const memoryStoreReadiness: BackendReadiness = { name: 'store', check: async () => ({ ok: true, detail: { backend: 'memory', durable: false } }) };

/** In-process coordination (memory mode): always there, living and dying with the process. */
export const memoryCoordinationReadiness: BackendReadiness = { name: 'coordination', check: async () => ({ ok: true, detail: 'in-process (memory mode)' }) };
