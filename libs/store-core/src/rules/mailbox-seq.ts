import { EpochMismatchError, InvalidInputError, InvariantViolationError } from '../errors/domain-errors';
import { U63_MAX } from '../model/u64';

/**
 * Mailbox seq layout (u64, bit 63 always clear):
 *
 *     bit 63 = 0 | bits 62…47 = epoch (16 bits) | bits 46…0 = source offset + 1 (47 bits)
 *
 * so `seq = (epoch << 47) | (offset + 1)`. Within one epoch the seq order is the source (Kafka)
 * offset order and every seq of a later epoch is greater than every seq of an earlier one. The
 * low 47 bits equal to 0 is the *start of the epoch*: smaller than every entry of the epoch, used
 * as the cursor / `upTo` when nothing is proven yet.
 */
export const MAILBOX_OFFSET_BITS = 47n;
/** Highest epoch (16 bits). */
export const MAX_MAILBOX_EPOCH = 0xffff;
/** Highest source offset that fits (`2^47 − 2`; `+ 1` must fit in 47 bits). */
export const MAX_MAILBOX_OFFSET = (1n << MAILBOX_OFFSET_BITS) - 2n;

const LOW_MASK = (1n << MAILBOX_OFFSET_BITS) - 1n;

function checkEpoch(epoch: number): void {
  if (!Number.isInteger(epoch) || epoch < 0 || epoch > MAX_MAILBOX_EPOCH) {
    throw new InvariantViolationError(`mailbox epoch out of range 0…${MAX_MAILBOX_EPOCH}: ${epoch}`);
  }
}

/** The seq of source `offset` in `epoch`. Epoch or offset out of range → `InvariantViolationError`. */
export function composeMailboxSeq(epoch: number, offset: bigint): bigint {
  checkEpoch(epoch);
  if (typeof offset !== 'bigint' || offset < 0n || offset > MAX_MAILBOX_OFFSET) {
    throw new InvariantViolationError(`source offset out of range 0…${MAX_MAILBOX_OFFSET}: ${String(offset)}`);
  }
  return (BigInt(epoch) << MAILBOX_OFFSET_BITS) | (offset + 1n);
}

/** The start-of-epoch seq (`epoch << 47`): below every entry of `epoch`, above every earlier epoch. */
export function epochStartSeq(epoch: number): bigint {
  checkEpoch(epoch);
  return BigInt(epoch) << MAILBOX_OFFSET_BITS;
}

/** A decoded mailbox seq; `offset` is null for the start-of-epoch seq. */
export interface MailboxSeqParts {
  readonly epoch: number;
  readonly offset: bigint | null;
}

/**
 * Splits a seq into epoch and source offset. Seqs come from callers (cursors, `upTo`), so a value
 * that is not a u64 with bit 63 clear is `InvalidInputError`.
 */
export function splitMailboxSeq(seq: bigint): MailboxSeqParts {
  if (typeof seq !== 'bigint' || seq < 0n || seq > U63_MAX) {
    throw new InvalidInputError(`mailbox seq must be a u64 with bit 63 clear: ${String(seq)}`);
  }
  const low = seq & LOW_MASK;
  return { epoch: Number(seq >> MAILBOX_OFFSET_BITS), offset: low === 0n ? null : low - 1n };
}

/**
 * Asserts that `seq` (an entry seq or the start-of-epoch seq) belongs to `epoch`; otherwise
 * `EpochMismatchError`. Returns the split parts.
 */
export function assertSeqInEpoch(seq: bigint, epoch: number): MailboxSeqParts {
  const parts = splitMailboxSeq(seq);
  if (parts.epoch !== epoch) {
    throw new EpochMismatchError(`mailbox seq ${seq} belongs to epoch ${parts.epoch}, store epoch is ${epoch}`);
  }
  return parts;
}

/**
 * The highest seq readable behind a lane watermark: `composeMailboxSeq(epoch, w)`, or the
 * start-of-epoch seq when nothing is proven (`w === null`).
 */
export function seqForWatermark(epoch: number, w: bigint | null): bigint {
  return w === null ? epochStartSeq(epoch) : composeMailboxSeq(epoch, w);
}
