import { UnavailableError, u64FromDecimal } from '@qim/store-core';
import type { RedisCommands } from '../backend/redis-commands';
import type { LeaseGrant, WriterLeaseStore } from './writer-lease';

/**
 * Renews a lease we still own and raises the id's HLC floor.
 * KEYS[1] lease key, KEYS[2] HLC floor key. ARGV[1] token, ARGV[2] ttl ms, ARGV[3] HLC (u64 decimal).
 * Returns 1 when renewed, 0 when the lease is gone or held by another token.
 */
const RENEW = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
local cur = redis.call('GET', KEYS[2])
if (not cur) or (string.len(cur) < string.len(ARGV[3])) or (string.len(cur) == string.len(ARGV[3]) and cur < ARGV[3]) then
  redis.call('SET', KEYS[2], ARGV[3])
end
return 1
`;

/** Releases a lease we own, raising the HLC floor. Same KEYS/ARGV as RENEW minus the ttl (ARGV[2] = HLC). */
const RELEASE = `
local cur = redis.call('GET', KEYS[2])
if (not cur) or (string.len(cur) < string.len(ARGV[2])) or (string.len(cur) == string.len(ARGV[2]) and cur < ARGV[2]) then
  redis.call('SET', KEYS[2], ARGV[2])
end
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) return 1 end
return 0
`;

/**
 * Takes a lost lease back when the id is free or still carries our token.
 * KEYS[1] lease key, KEYS[2] HLC floor key. ARGV[1] token, ARGV[2] ttl ms.
 * Returns the HLC floor (u64 decimal, '0' when none) when the id is ours again, or -1 while another token holds it.
 */
const REACQUIRE = `
local cur = redis.call('GET', KEYS[1])
if cur and cur ~= ARGV[1] then return -1 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return redis.call('GET', KEYS[2]) or '0'
`;

/** Writer-id leases in Redis: `SET <namespace>:{writers}:lease:<id> <token> NX PX ttl`, HLC floor beside it. */
export class RedisLeaseStore implements WriterLeaseStore {
  constructor(
    private readonly redis: RedisCommands,
    private readonly namespace: string,
  ) {}

  private keys(id: number): [string, string] {
    return [`${this.namespace}:{writers}:lease:${id}`, `${this.namespace}:{writers}:hlc:${id}`];
  }

  async acquire(slots: number, ttlMs: number, token: string): Promise<LeaseGrant> {
    for (let id = 0; id < slots; id++) {
      const [lease, hlc] = this.keys(id);
      if ((await this.redis.set(lease, token, 'PX', ttlMs, 'NX')) !== 'OK') continue;
      const floor = await this.redis.get(hlc);
      return { writerId: id, token, hlcFloor: floor === null ? 0n : u64FromDecimal(floor, 'writer HLC floor') };
    }
    throw new UnavailableError(`all ${slots} writer ids are leased (QIM_WRITER_ID_SLOTS)`);
  }

  async renew(grant: LeaseGrant, ttlMs: number, hlc: bigint): Promise<boolean> {
    return Number(await this.redis.eval(RENEW, 2, ...this.keys(grant.writerId), grant.token, ttlMs, hlc.toString())) === 1;
  }

  async reacquire(grant: LeaseGrant, ttlMs: number): Promise<bigint | null> {
    const r = await this.redis.eval(REACQUIRE, 2, ...this.keys(grant.writerId), grant.token, ttlMs);
    if (r === -1) return null;
    return u64FromDecimal(String(r), 'writer HLC floor');
  }

  async release(grant: LeaseGrant, hlc: bigint): Promise<void> {
    await this.redis.eval(RELEASE, 2, ...this.keys(grant.writerId), grant.token, hlc.toString());
  }

  /** The connection is shared and closed by its owner. */
  async close(): Promise<void> {}
}
