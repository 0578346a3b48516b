import { CorruptEntryError, InvariantViolationError, u64FromDecimal } from '@qim/store-core';

/**
 * A Redis integer reply (INCR) → u64. ioredis delivers integer replies as JS numbers, exact only up
 * to 2^53 − 1; a larger value (a conversation with 9·10^15 messages) is refused rather than rounded.
 */
export function u64FromI64Decimal(reply: unknown, what: string): bigint {
  if (typeof reply === 'number') {
    if (!Number.isSafeInteger(reply) || reply < 0) throw new InvariantViolationError(`${what}: integer reply beyond 2^53 or negative: ${reply}`);
    return BigInt(reply);
  }
  const text = Buffer.isBuffer(reply) ? reply.toString('latin1') : typeof reply === 'string' ? reply : null;
  if (text === null) throw new CorruptEntryError(`${what}: unexpected reply`);
  try {
    return u64FromDecimal(text, what);
  } catch (e) {
    throw new CorruptEntryError(`${what}: not a u64`, { cause: e });
  }
}
