import type { Id128 } from '../model/ids';

/**
 * Conversation membership (the real group service is outside this product; this keeps it usable
 * end to end). Redis-backed in redis and scylla modes; in-process only in memory mode (dev/test).
 */
export interface MembershipDirectory {
  /** Members of the conversation, ascending, unique; empty when unknown. */
  members(tenantId: Id128, conversationId: Id128): Promise<Id128[]>;
  /** How many members the conversation has (0 when unknown), without listing them: one O(1) read. */
  count(tenantId: Id128, conversationId: Id128): Promise<number>;
  /** True when `userId` is a member. */
  isMember(tenantId: Id128, conversationId: Id128, userId: Id128): Promise<boolean>;
  /**
   * Adds users atomically; refused with `FanoutLimitError` (nothing added) when the conversation
   * would exceed `maxMembers`. Returns the member count after the change.
   */
  add(tenantId: Id128, conversationId: Id128, users: readonly Id128[], maxMembers: number): Promise<number>;
  /** Removes users (absent ones ignored). Returns the member count after the change. */
  remove(tenantId: Id128, conversationId: Id128, users: readonly Id128[]): Promise<number>;
  /** Releases what the directory owns (a shared connection stays with its owner). */
  close(): Promise<void>;
}
