import type { BackendConfig, QimEnv } from '../config/service-env';
import type { MailboxBackend, MailboxBinding, StartupLog } from './backend-types';
import { memoryMailboxBackend } from './memory-backend';
import { redisMailboxBackend } from './redis-backend';
import { scyllaMailboxBackend } from './scylla-backend';

/** The backend factory for mailboxes (same rules as `openMessageBackend`). */
export async function openMailboxBackend(cfg: BackendConfig, env: QimEnv, binding: MailboxBinding, step: StartupLog): Promise<MailboxBackend> {
  switch (cfg.kind) {
    case 'memory':
      step('store', { backend: 'memory' });
      return memoryMailboxBackend(binding);
    case 'redis':
      return redisMailboxBackend({ url: cfg.redisUrl, namespace: cfg.namespace, env, replicaAcks: cfg.replicaAcks }, binding, step);
    case 'scylla':
      return scyllaMailboxBackend(cfg, binding, step);
  }
}
