import { FanoutLimitError, compareId128 } from '@qim/store-core';
import type { Id128, MembershipDirectory } from '@qim/store-core';
import type { RedisKeys } from '../keys/redis-keys';
import type { RedisIo } from '../redis/redis-io';
import { ScriptCode, errorForCode } from '../redis/script-codes';
import { ScriptReply } from '../redis/script-reply';

/**
 * Conversation membership in Redis: one set per `(tenant, conversation)` (`RedisKeys.membership`),
 * changed only by `membership-add-v1` (all or nothing under the cap) and `membership-remove-v1`.
 * A change is answered only once the replicas the store requires hold it (ADR-0038): a removal only
 * the old primary had would let a promoted replica accept the removed member's sends again, an
 * addition would be refused again after it was acknowledged. Both scripts are idempotent, so a
 * change refused for want of replicas (`UnavailableError`) is retried as it is.
 */
export class RedisMembershipDirectory implements MembershipDirectory {
  constructor(
    private readonly io: RedisIo,
    private readonly keys: RedisKeys,
  ) {}

  async members(tenantId: Id128, conversationId: Id128): Promise<Id128[]> {
    const [raw] = await this.io.commands([['SMEMBERS', this.keys.membership(tenantId, conversationId)]], 'read');
    return (raw as Buffer[]).map((b) => b.toString('latin1') as Id128).sort(compareId128);
  }

  async count(tenantId: Id128, conversationId: Id128): Promise<number> {
    const [raw] = await this.io.commands([['SCARD', this.keys.membership(tenantId, conversationId)]], 'read');
    return Number(raw);
  }

  async isMember(tenantId: Id128, conversationId: Id128, userId: Id128): Promise<boolean> {
    const [raw] = await this.io.commands([['SISMEMBER', this.keys.membership(tenantId, conversationId), userId]], 'read');
    return Number(raw) === 1;
  }

  async add(tenantId: Id128, conversationId: Id128, users: readonly Id128[], maxMembers: number): Promise<number> {
    const call = { script: 'membershipAddV1', keys: [this.keys.membership(tenantId, conversationId)], args: [String(maxMembers), ...users] } as const;
    const reply = ScriptReply.of(await this.io.script(call, 'write'), 'membership add');
    if (reply.code === ScriptCode.OVER_LIMIT) {
      throw new FanoutLimitError(`conversation would have ${reply.int(1)} members; the limit (QIM_MAX_FANOUT) is ${maxMembers}`);
    }
    if (reply.code !== ScriptCode.OK) throw errorForCode(reply.code, 'membership add');
    await this.io.replicated(call.keys, 'membership add');
    return reply.int(1);
  }

  async remove(tenantId: Id128, conversationId: Id128, users: readonly Id128[]): Promise<number> {
    const call = { script: 'membershipRemoveV1', keys: [this.keys.membership(tenantId, conversationId)], args: [...users] } as const;
    const reply = ScriptReply.of(await this.io.script(call, 'write'), 'membership remove');
    if (reply.code !== ScriptCode.OK) throw errorForCode(reply.code, 'membership remove');
    await this.io.replicated(call.keys, 'membership remove');
    return reply.int(1);
  }

  /** The connection is shared and closed by its owner. */
  async close(): Promise<void> {}
}
