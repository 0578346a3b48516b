import type { HousekeepingReport } from '../model/mailbox';
import type { MessageStoreCapabilities } from './message-store-capabilities';

/**
 * Bounded reclamation of expired message facts, what the writer's housekeeping loop runs on a
 * schedule when `capabilities.needsHousekeeping` (stores whose server TTLs remove them need none).
 */
export interface MessageHousekeeping {
  readonly capabilities: MessageStoreCapabilities;

  /**
   * Bounded housekeeping of expired auxiliary commit facts (commit row, recovery index entries, seq
   * claim), counted per commit: `examined` = commits (at most `limit`) whose facts have expired
   * (aux expiry ≤ `nowMs`) and are still held, `reclaimed` = those whose facts this pass removed.
   * Facts that have not expired are never counted. A backend whose server TTLs remove expired facts
   * by themselves (`injectableClock: false`) finds none: `{ examined: 0, reclaimed: 0, more: false }`.
   */
  gcCommittedAuxiliary(nowMs: bigint, limit: number): Promise<HousekeepingReport>;

  /**
   * Bounded housekeeping of expired Ephemeral history, counted per message: `examined` = messages (at
   * most `limit`) whose record has expired and is still held, `reclaimed` = those whose record and
   * index row this pass removed. Server-TTL backends (`injectableClock: false`) find none.
   */
  gcExpiredHistory(nowMs: bigint, limit: number): Promise<HousekeepingReport>;
}
