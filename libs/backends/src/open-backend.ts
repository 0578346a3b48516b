import type { BackendSelection, Clock, Coordination, MailboxBackend, MailboxBinding, MessageBackend, StartupLog } from '@qim/store-core';
import type { BackendConfig } from './registry';
import { moduleOf } from './registry';

/**
 * The backend factory for messages: the only place a backend is opened. Scylla: migrate →
 * connect → readiness, each failure thrown (never a fallback to another backend).
 */
export async function openMessageBackend(cfg: BackendConfig | BackendSelection, env: string, step: StartupLog, clock?: Clock): Promise<MessageBackend> {
  return moduleOf(cfg).openMessageBackend(cfg, { env, step, ...(clock ? { clock } : {}) });
}

/** The backend factory for mailboxes (same rules as `openMessageBackend`). */
export async function openMailboxBackend(
  cfg: BackendConfig | BackendSelection,
  env: string,
  binding: MailboxBinding,
  step: StartupLog,
  clock?: Clock,
): Promise<MailboxBackend> {
  return moduleOf(cfg).openMailboxBackend(cfg, binding, { env, step, ...(clock ? { clock } : {}) });
}

/**
 * The writer's membership directory, writer-id leases and recovery claims (`WriterConfig.coordination`:
 * redis in redis and scylla modes, in-process in memory mode). `owner` identifies this process in
 * recovery claims.
 */
export async function openCoordination(cfg: BackendConfig | BackendSelection, owner: string, step: StartupLog): Promise<Coordination> {
  const m = moduleOf(cfg);
  if (m.openCoordination === undefined) throw new Error(`backend ${cfg.kind} keeps no coordination (the writer's config chooses another)`);
  return m.openCoordination(cfg, owner, step);
}
