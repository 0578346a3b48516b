/**
 * The soak's conversation membership: in-process, the same contract as the services' membership
 * directory (members ascending and unique; add refused beyond the cap). Membership storage is not
 * what the soak measures; changes to it are load (who the recipients of later sends are).
 */
export class SoakMembership {
  private readonly byConversation = new Map<string, Set<string>>();

  private set(tenantId: string, conversationId: string): Set<string> {
    const k = `${tenantId}:${conversationId}`;
    let s = this.byConversation.get(k);
    if (!s) this.byConversation.set(k, (s = new Set()));
    return s;
  }

  async members<T extends string>(tenantId: T, conversationId: T): Promise<T[]> {
    return ([...this.set(tenantId, conversationId)] as T[]).sort();
  }

  async isMember(tenantId: string, conversationId: string, userId: string): Promise<boolean> {
    return this.set(tenantId, conversationId).has(userId);
  }

  async add(tenantId: string, conversationId: string, users: readonly string[], maxMembers: number): Promise<number> {
    const s = this.set(tenantId, conversationId);
    if (new Set([...s, ...users]).size > maxMembers) throw new Error(`conversation would exceed ${maxMembers} members`);
    for (const u of users) s.add(u);
    return s.size;
  }

  async remove(tenantId: string, conversationId: string, users: readonly string[]): Promise<number> {
    const s = this.set(tenantId, conversationId);
    for (const u of users) s.delete(u);
    return s.size;
  }

  async close(): Promise<void> {}
}
