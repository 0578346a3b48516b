import { newId128 } from '@qim/client';
import type { Id128 } from '@qim/client';
import { createHash } from 'node:crypto';

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
 * several conversations, plus its own changing member. With `shardCount`, the stable users are drawn
 * until they cover every mailbox shard (as far as there are users): a drill that needs one shard to
 * keep delivering while another is faulted must have a stable member there — with random ids, four
 * users all land on one of two shards one run in eight.
 */
export function makePopulation(conversations: number, stableUsers: number, membersPerConversation = 3, shardCount?: number): Population {
  const tenantId = newId128();
  const convs = Array.from({ length: conversations }, () => newId128());
  const users = stableUsersCovering(tenantId, stableUsers, shardCount);
  const stableMembers = new Map<Id128, Id128[]>();
  const churnMember = new Map<Id128, Id128>();
  convs.forEach((c, i) => {
    const members = new Set<Id128>();
    for (let k = 0; k < Math.min(membersPerConversation, stableUsers); k += 1) members.add(users[(i + k) % stableUsers]!);
    stableMembers.set(c, [...members]);
    churnMember.set(c, newId128());
  });
  return { tenantId, conversations: convs, stableUsers: users, stableMembers, churnMember };
}

function stableUsersCovering(tenantId: Id128, count: number, shardCount: number | undefined): Id128[] {
  const draw = (): Id128[] => Array.from({ length: count }, () => newId128());
  if (shardCount === undefined) return draw();
  const wanted = Math.min(shardCount, count);
  for (let attempt = 0; attempt < 1_000; attempt += 1) {
    const users = draw();
    const shards = new Set(users.map((u) => userShard(tenantId, u, shardCount)));
    if (shards.size >= wanted) return users;
  }
  throw new Error(`makePopulation: no ${count} stable users covering ${wanted} of ${shardCount} shards in 1000 draws`);
}

/** The conversations a user was ever a member of. */
export function conversationsOf(pop: Population, user: Id128): Set<Id128> {
  const out = new Set<Id128>();
  for (const [c, members] of pop.stableMembers) if (members.includes(user)) out.add(c);
  for (const [c, u] of pop.churnMember) if (u === user) out.add(c);
  return out;
}

/**
 * The mailbox shard of a user, computed here from the documented placement rule (design 02,
 * `store-core` rules/sharding: u64be(SHA-256("qim.shard.v1\0" ‖ tenant ‖ user)[0..8]) mod count). The
 * checker drives the product from outside, so it holds its own copy of the rule; its spec pins it
 * to the product's golden vectors (a change of the rule is an epoch change).
 */
export function userShard(tenantId: Id128, userId: Id128, shardCount: number): number {
  if (!Number.isInteger(shardCount) || shardCount < 1 || shardCount > 65_536) throw new Error(`shardCount must be an integer 1…65536: ${shardCount}`);
  const h = createHash('sha256').update('qim.shard.v1\0', 'ascii').update(Buffer.from(tenantId, 'hex')).update(Buffer.from(userId, 'hex'));
  return Number(h.digest().readBigUInt64BE(0) % BigInt(shardCount));
}
