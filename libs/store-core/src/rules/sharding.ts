import { createHash } from 'node:crypto';
import { InvalidInputError } from '../errors/domain-errors';
import { id128FromBytes, id128ToBytes } from '../model/ids';
import type { Id128 } from '../model/ids';

/**
 * Recipient placement. Two independent SHA-256 hashes, each with its own domain prefix so that
 * no two placements correlate:
 *
 * - shard = u64be(SHA-256("qim.shard.v1\0" ‖ tenant[16] ‖ user[16])[0..8]) mod shardCount
 * - dispatchId = SHA-256("qim.dispatch.v1\0" ‖ messageId[16] ‖ u16be(shard))[0..16]
 *
 * Changing any of these is an epoch change (golden vectors in `sharding.spec.ts` pin them).
 */
const SHARD_DOMAIN = Buffer.from('qim.shard.v1\0', 'ascii');
const DISPATCH_DOMAIN = Buffer.from('qim.dispatch.v1\0', 'ascii');

/** Highest shard count (shards are u16). */
export const MAX_SHARD_COUNT = 65_536;

function digest(...parts: Buffer[]): Buffer {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
}

function userHash(domain: Buffer, tenantId: Id128, userId: Id128): bigint {
  return digest(domain, id128ToBytes(tenantId), id128ToBytes(userId)).readBigUInt64BE(0);
}

/** The shard (dispatch partition) of a user: 0 … shardCount−1. `shardCount` must be an integer 1 … 65 536. */
export function shardOf(tenantId: Id128, userId: Id128, shardCount: number): number {
  if (!Number.isInteger(shardCount) || shardCount < 1 || shardCount > MAX_SHARD_COUNT) {
    throw new InvalidInputError(`shardCount must be an integer 1…${MAX_SHARD_COUNT}: ${shardCount}`);
  }
  return Number(userHash(SHARD_DOMAIN, tenantId, userId) % BigInt(shardCount));
}

/** The deterministic dispatch id of a message's fan-out to one shard (0 … 65 535). */
export function dispatchIdOf(messageId: Id128, shard: number): Id128 {
  if (!Number.isInteger(shard) || shard < 0 || shard >= MAX_SHARD_COUNT) {
    throw new InvalidInputError(`shard must be an integer 0…${MAX_SHARD_COUNT - 1}: ${shard}`);
  }
  const s = Buffer.alloc(2);
  s.writeUInt16BE(shard, 0);
  return id128FromBytes(digest(DISPATCH_DOMAIN, id128ToBytes(messageId), s).subarray(0, 16));
}
