import type { Id128 } from '../model/ids';
import type { Viewer } from '../model/message';

/**
 * Decides whether a viewer may read a conversation's history. `historyPage` calls it before any
 * store read; `false` → `ForbiddenError` and zero reads.
 */
export interface HistoryAuthorizer {
  canReadHistory(viewer: Viewer, conversationId: Id128): Promise<boolean>;
}
