import type { CommitKey } from '@qim/store-core';
import { commitKeyString } from '@qim/store-core';
import type { RedisCommands } from '../backend/redis-commands';
import type { RecoveryClaims } from './recovery-claims';

/**
 * Claims a commit for one writer when unclaimed or already its own.
 * KEYS[1] claim key. ARGV[1] owner token, ARGV[2] ttl ms. Returns 1 when claimed, 0 when another owner holds it.
 */
const CLAIM = `
local cur = redis.call('GET', KEYS[1])
if cur and cur ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`;

/** Claims in Redis: `<namespace>:recovery-claim:<commit key>` = owner token, `PX ttl`. */
export class RedisRecoveryClaims implements RecoveryClaims {
  constructor(
    private readonly redis: RedisCommands,
    private readonly namespace: string,
    private readonly owner: string,
  ) {}

  async claim(key: CommitKey, ttlMs: number): Promise<boolean> {
    const k = `${this.namespace}:recovery-claim:${commitKeyString(key)}`;
    return Number(await this.redis.eval(CLAIM, 1, k, this.owner, ttlMs)) === 1;
  }
}
