import { randomBytes } from 'node:crypto';
import type { Id128 } from '@qim/store-core';
import { InvariantViolationError } from '@qim/store-core';
import type { HybridLogicalClock } from './hybrid-clock';

/** A candidate message id and the created_at (ms) the commit will carry if it is new. */
export interface IssuedId {
  readonly messageId: Id128;
  readonly createdAt: bigint;
}

/**
 * Message ids, 16 bytes: HLC (8 bytes, big-endian) ‖ writer id (2 bytes) ‖ incarnation (6 random
 * bytes fixed per process). Unique within a process because the HLC strictly increases; across
 * concurrent writers because the writer id is leased; across restarts because a successor starts
 * above the HLC recorded in the lease and carries a fresh incarnation.
 */
export class MessageIdSource {
  private readonly incarnation: Buffer;

  constructor(
    private readonly clock: HybridLogicalClock,
    private readonly writerId: number,
    incarnation: Buffer = randomBytes(6),
  ) {
    if (!Number.isInteger(writerId) || writerId < 0 || writerId > 0xffff) {
      throw new InvariantViolationError(`writer id out of range: ${writerId}`);
    }
    if (incarnation.length !== 6) throw new InvariantViolationError('incarnation must be 6 bytes');
    this.incarnation = Buffer.from(incarnation);
  }

  next(): IssuedId {
    const tick = this.clock.tick();
    const b = Buffer.alloc(16);
    b.writeBigUInt64BE(tick.packed, 0);
    b.writeUInt16BE(this.writerId, 8);
    this.incarnation.copy(b, 10);
    return { messageId: b.toString('hex') as Id128, createdAt: tick.physicalMs };
  }
}
