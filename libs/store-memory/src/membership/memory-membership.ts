import type { Id128, MembershipDirectory } from '@qim/store-core';
import { FanoutLimitError, compareId128 } from '@qim/store-core';

/** In-process membership for memory mode (development/test only); lost on restart. */
export class MemoryMembership implements MembershipDirectory {
  private readonly byConversation = new Map<string, Set<Id128>>();

  private set(tenantId: Id128, conversationId: Id128): Set<Id128> {
    const k = `${tenantId}:${conversationId}`;
    let s = this.byConversation.get(k);
    if (!s) this.byConversation.set(k, (s = new Set()));
    return s;
  }

  async members(tenantId: Id128, conversationId: Id128): Promise<Id128[]> {
    return [...this.set(tenantId, conversationId)].sort(compareId128);
  }

  async count(tenantId: Id128, conversationId: Id128): Promise<number> {
    return this.byConversation.get(`${tenantId}:${conversationId}`)?.size ?? 0;
  }

  async isMember(tenantId: Id128, conversationId: Id128, userId: Id128): Promise<boolean> {
    return this.set(tenantId, conversationId).has(userId);
  }

  async add(tenantId: Id128, conversationId: Id128, users: readonly Id128[], maxMembers: number): Promise<number> {
    const s = this.set(tenantId, conversationId);
    const after = new Set([...s, ...users]);
    if (after.size > maxMembers) {
      throw new FanoutLimitError(`conversation would have ${after.size} members; the limit (QIM_MAX_FANOUT) is ${maxMembers}`);
    }
    for (const u of users) s.add(u);
    return s.size;
  }

  async remove(tenantId: Id128, conversationId: Id128, users: readonly Id128[]): Promise<number> {
    const s = this.set(tenantId, conversationId);
    for (const u of users) s.delete(u);
    return s.size;
  }

  async close(): Promise<void> {}
}
