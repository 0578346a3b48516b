import type { CommitKey, RecoveryClaims } from '@qim/store-core';
import type { RedisKeys } from '../keys/redis-keys';
import type { RedisIo } from '../redis/redis-io';
import { ScriptCode, errorForCode } from '../redis/script-codes';
import { ScriptReply } from '../redis/script-reply';

/** Recovery claims in Redis (`RedisKeys.recoveryClaim`): owner token with a `PX` lifetime (`recovery-claim-v1`). */
export class RedisRecoveryClaims implements RecoveryClaims {
  constructor(
    private readonly io: RedisIo,
    private readonly keys: RedisKeys,
    private readonly owner: string,
  ) {}

  async claim(key: CommitKey, ttlMs: number): Promise<boolean> {
    const call = { script: 'recoveryClaimV1', keys: [this.keys.recoveryClaim(key)], args: [this.owner, String(ttlMs)] } as const;
    const reply = ScriptReply.of(await this.io.script(call, 'write'), 'recovery claim');
    if (reply.code === ScriptCode.CONFLICT) return false;
    if (reply.code !== ScriptCode.OK) throw errorForCode(reply.code, reply.context);
    return true;
  }
}
