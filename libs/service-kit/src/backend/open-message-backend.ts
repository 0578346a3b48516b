import type { BackendConfig, QimEnv } from '../config/service-env';
import type { MessageBackend, StartupLog } from './backend-types';
import { memoryMessageBackend } from './memory-backend';
import { redisMessageBackend } from './redis-backend';
import { scyllaMessageBackend } from './scylla-backend';

/**
 * The backend factory for messages: the only place a backend is chosen. Scylla: migrate →
 * connect → readiness, each failure thrown (never a fallback to another backend).
 */
export async function openMessageBackend(cfg: BackendConfig, env: QimEnv, step: StartupLog): Promise<MessageBackend> {
  switch (cfg.kind) {
    case 'memory':
      step('store', { backend: 'memory' });
      return memoryMessageBackend();
    case 'redis':
      return redisMessageBackend({ url: cfg.redisUrl, namespace: cfg.namespace, env, replicaAcks: cfg.replicaAcks }, step);
    case 'scylla':
      return scyllaMessageBackend(cfg, step);
  }
}
