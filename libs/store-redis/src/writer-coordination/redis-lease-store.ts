import { UnavailableError, u64FromDecimal } from '@qim/store-core';
import type { LeaseGrant, WriterLeaseStore } from '@qim/store-core';
import type { RedisKeys } from '../keys/redis-keys';
import type { RedisIo, ScriptCall } from '../redis/redis-io';
import { ScriptCode, errorForCode } from '../redis/script-codes';
import { ScriptReply } from '../redis/script-reply';

/**
 * Writer-id leases in Redis (`RedisKeys.writerLease`): the lease key holds the holder's token with a
 * `PX` lifetime, the HLC floor beside it only ever rises (`lease-*-v1` scripts).
 */
export class RedisLeaseStore implements WriterLeaseStore {
  constructor(
    private readonly io: RedisIo,
    private readonly keys: RedisKeys,
  ) {}

  private call(script: ScriptCall['script'], writerId: number, args: readonly string[]): ScriptCall {
    const k = this.keys.writerLease(writerId);
    return { script, keys: [k.lease, k.hlcFloor], args };
  }

  private async run(script: ScriptCall['script'], writerId: number, args: readonly string[]): Promise<ScriptReply> {
    return ScriptReply.of(await this.io.script(this.call(script, writerId, args), 'write'), `${script} (writer id ${writerId})`);
  }

  /** A granted or renewed lease is on enough replicas (ADR-0038) before the writer relies on it: a promoted replica must not hand the id out again. */
  private replicated(writerId: number, what: string): Promise<void> {
    return this.io.replicated([this.keys.writerLease(writerId).lease], `${what} (writer id ${writerId})`);
  }

  async acquire(slots: number, ttlMs: number, token: string): Promise<LeaseGrant> {
    for (let id = 0; id < slots; id++) {
      const reply = await this.run('leaseAcquireV1', id, [token, String(ttlMs)]);
      if (reply.code === ScriptCode.CONFLICT) continue;
      if (reply.code !== ScriptCode.OK) throw errorForCode(reply.code, reply.context);
      await this.replicated(id, 'lease acquire');
      return { writerId: id, token, hlcFloor: u64FromDecimal(reply.str(1), 'writer HLC floor') };
    }
    throw new UnavailableError(`all ${slots} writer ids are leased (QIM_WRITER_ID_SLOTS)`);
  }

  async renew(grant: LeaseGrant, ttlMs: number, hlc: bigint): Promise<boolean> {
    const reply = await this.run('leaseRenewV1', grant.writerId, [grant.token, String(ttlMs), hlc.toString()]);
    if (reply.code === ScriptCode.CONFLICT) return false;
    if (reply.code !== ScriptCode.OK) throw errorForCode(reply.code, reply.context);
    await this.replicated(grant.writerId, 'lease renew');
    return true;
  }

  async reacquire(grant: LeaseGrant, ttlMs: number): Promise<bigint | null> {
    const reply = await this.run('leaseReacquireV1', grant.writerId, [grant.token, String(ttlMs)]);
    if (reply.code === ScriptCode.CONFLICT) return null;
    if (reply.code !== ScriptCode.OK) throw errorForCode(reply.code, reply.context);
    await this.replicated(grant.writerId, 'lease reacquire');
    return u64FromDecimal(reply.str(1), 'writer HLC floor');
  }

  async release(grant: LeaseGrant, hlc: bigint): Promise<void> {
    const reply = await this.run('leaseReleaseV1', grant.writerId, [grant.token, hlc.toString()]);
    if (reply.code !== ScriptCode.OK && reply.code !== ScriptCode.ALREADY) throw errorForCode(reply.code, reply.context);
  }

  /** The connection is shared and closed by its owner. */
  async close(): Promise<void> {}
}
