import { InvalidInputError } from '@qim/store-core';
import type { HousekeepingReport, Id128, MessageHousekeeping } from '@qim/store-core';
import { COMMIT_SHARDS, EPHEMERAL_REGISTRY_SHARDS } from '../keys/redis-keys';
import type { RedisKeys } from '../keys/redis-keys';
import { msScore } from '../redis/hex64';
import type { RedisIo } from '../redis/redis-io';
import { ScriptReply } from '../redis/script-reply';
import { gcCommitAuxCall, gcHistoryCall } from './message-script-args';

function checkLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1) throw new InvalidInputError('limit must be an integer ≥ 1');
}

function count(reply: unknown): number {
  return typeof reply === 'number' ? reply : Number(reply);
}

/**
 * Bounded, counted housekeeping of the MessageStore. Logical expiry is already enforced on every
 * read (caller clock); these passes reclaim memory of facts that expired: auxiliary commit facts
 * (commit hash + recovery/aux members) and Ephemeral history (record + index row).
 */
export class RedisMessageHousekeeping implements Omit<MessageHousekeeping, 'capabilities'> {
  constructor(
    private readonly io: RedisIo,
    private readonly keys: RedisKeys,
  ) {}

  async gcCommittedAuxiliary(nowMs: bigint, limit: number): Promise<HousekeepingReport> {
    checkLimit(limit);
    const shards = Array.from({ length: COMMIT_SHARDS }, (_, s) => this.keys.commitShard(s));
    const due = await this.io.commands(
      shards.map((s) => ['ZCOUNT', s.aux, '-inf', msScore(nowMs)] as const),
      'read',
    );
    let examined = 0;
    let reclaimed = 0;
    let more = false;
    for (let s = 0; s < COMMIT_SHARDS; s++) {
      if (count(due[s]) === 0) continue;
      const budget = limit - examined;
      if (budget <= 0) {
        more = true;
        break;
      }
      const reply = ScriptReply.of(await this.io.script(gcCommitAuxCall(shards[s]!, nowMs, budget), 'write'), 'gcCommittedAuxiliary');
      examined += reply.int(0);
      reclaimed += reply.int(1);
      more ||= reply.int(2) === 1;
    }
    return { examined, reclaimed, more };
  }

  async gcExpiredHistory(nowMs: bigint, limit: number): Promise<HousekeepingReport> {
    checkLimit(limit);
    let examined = 0;
    let reclaimed = 0;
    let more = false;
    for (let k = 0; k < EPHEMERAL_REGISTRY_SHARDS && !more; k++) {
      const registry = this.keys.ephemeralRegistry(k);
      const [members] = await this.io.commands([['ZRANGEBYSCORE', registry, '-inf', msScore(nowMs), 'LIMIT', '0', String(limit)]], 'read');
      for (const raw of members as Buffer[]) {
        const budget = limit - examined;
        if (budget <= 0) {
          more = true;
          break;
        }
        const member = raw.toString('latin1');
        const conv = this.keys.conversation(member.slice(0, 32) as Id128, member.slice(32) as Id128);
        const reply = ScriptReply.of(await this.io.script(gcHistoryCall(conv, nowMs, budget), 'write'), 'gcExpiredHistory');
        examined += reply.int(0);
        reclaimed += reply.int(1);
        more ||= reply.int(2) === 1;
        await this.reRegister(registry, member, conv.expiry, reply.buf(3).toString('latin1'));
      }
    }
    return { examined, reclaimed, more };
  }

  /**
   * Keeps the registry honest after a conversation pass: its earliest remaining expiry, or removal
   * when none remain. A put_record racing with the removal registers before and after writing its
   * row, and the re-check below re-adds a conversation that gained a row meanwhile.
   */
  private async reRegister(registry: string, member: string, expiry: string, next: string): Promise<void> {
    if (next !== '') {
      await this.io.commands([['ZADD', registry, next, member]], 'write');
      return;
    }
    await this.io.commands([['ZREM', registry, member]], 'write');
    const [first] = await this.io.commands([['ZRANGE', expiry, '0', '0', 'WITHSCORES']], 'read');
    const rows = first as Buffer[];
    if (rows.length === 2) await this.io.commands([['ZADD', registry, 'LT', rows[1]!.toString('latin1'), member]], 'write');
  }
}
