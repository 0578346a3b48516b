import { newId128 } from '@qim/client';
import type { Id128 } from '@qim/client';

/** Who talks where: conversations, the members that stay, and one member per conversation that comes and goes. */
export interface Population {
  readonly tenantId: Id128;
  readonly conversations: readonly Id128[];
  readonly stableUsers: readonly Id128[];
  /** conversation → its stable members (members for the whole load). */
  readonly stableMembers: ReadonlyMap<Id128, readonly Id128[]>;
  /** conversation → its changing member (added and removed during the load). */
  readonly churnMember: ReadonlyMap<Id128, Id128>;
}

/**
 * Conversation i has the stable users i, i+1, i+2 (mod the user count), so every mailbox spans
 * several conversations, plus its own changing member.
 */
export function makePopulation(conversations: number, stableUsers: number, membersPerConversation = 3): Population {
  const convs = Array.from({ length: conversations }, () => newId128());
  const users = Array.from({ length: stableUsers }, () => newId128());
  const stableMembers = new Map<Id128, Id128[]>();
  const churnMember = new Map<Id128, Id128>();
  convs.forEach((c, i) => {
    const members = new Set<Id128>();
    for (let k = 0; k < Math.min(membersPerConversation, stableUsers); k += 1) members.add(users[(i + k) % stableUsers]!);
    stableMembers.set(c, [...members]);
    churnMember.set(c, newId128());
  });
  return { tenantId: newId128(), conversations: convs, stableUsers: users, stableMembers, churnMember };
}

/** The conversations a user was ever a member of. */
export function conversationsOf(pop: Population, user: Id128): Set<Id128> {
  const out = new Set<Id128>();
  for (const [c, members] of pop.stableMembers) if (members.includes(user)) out.add(c);
  for (const [c, u] of pop.churnMember) if (u === user) out.add(c);
  return out;
}
