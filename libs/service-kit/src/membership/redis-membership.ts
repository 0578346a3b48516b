import type { Id128 } from '@qim/store-core';
import { compareId128 } from '@qim/store-core';
import type { RedisCommands } from '../backend/redis-commands';
import { FanoutLimitError } from '../errors/service-errors';
import type { MembershipDirectory } from './membership-directory';

/**
 * Adds members atomically under a cap.
 * KEYS[1] member set. ARGV[1] max members; ARGV[2..] users to add.
 * Returns the member count after the change, or −(count it would have had) when over the cap
 * (then nothing is added).
 */
const ADD_CAPPED = `
local n = redis.call('SCARD', KEYS[1])
local fresh = 0
for i = 2, #ARGV do
  if redis.call('SISMEMBER', KEYS[1], ARGV[i]) == 0 then fresh = fresh + 1 end
end
if n + fresh > tonumber(ARGV[1]) then return -(n + fresh) end
for i = 2, #ARGV do redis.call('SADD', KEYS[1], ARGV[i]) end
return redis.call('SCARD', KEYS[1])
`;

/** Removes members. KEYS[1] member set; ARGV users. Returns the count after the change. */
const REMOVE = `
for i = 1, #ARGV do redis.call('SREM', KEYS[1], ARGV[i]) end
return redis.call('SCARD', KEYS[1])
`;

/** Conversation membership in Redis: one set per `(tenant, conversation)`, key `<namespace>:members:{tenant:conversation}`. */
export class RedisMembership implements MembershipDirectory {
  constructor(
    private readonly redis: RedisCommands,
    private readonly namespace: string,
  ) {}

  private key(tenantId: Id128, conversationId: Id128): string {
    return `${this.namespace}:members:{${tenantId}:${conversationId}}`;
  }

  async members(tenantId: Id128, conversationId: Id128): Promise<Id128[]> {
    const raw = await this.redis.smembers(this.key(tenantId, conversationId));
    return (raw as Id128[]).sort(compareId128);
  }

  async isMember(tenantId: Id128, conversationId: Id128, userId: Id128): Promise<boolean> {
    return (await this.redis.sismember(this.key(tenantId, conversationId), userId)) === 1;
  }

  async add(tenantId: Id128, conversationId: Id128, users: readonly Id128[], maxMembers: number): Promise<number> {
    const n = Number(await this.redis.eval(ADD_CAPPED, 1, this.key(tenantId, conversationId), maxMembers, ...users));
    if (n < 0) throw new FanoutLimitError(`conversation would have ${-n} members; the limit (QIM_MAX_FANOUT) is ${maxMembers}`);
    return n;
  }

  async remove(tenantId: Id128, conversationId: Id128, users: readonly Id128[]): Promise<number> {
    return Number(await this.redis.eval(REMOVE, 1, this.key(tenantId, conversationId), ...users));
  }

  /** The connection is shared and closed by its owner. */
  async close(): Promise<void> {}
}
