import fc from 'fast-check';
import { EpochMismatchError, InvalidInputError, InvariantViolationError } from '../errors/domain-errors';
import { U63_MAX } from '../model/u64';
import { assertSeqInEpoch, composeMailboxSeq, epochStartSeq, MAX_MAILBOX_EPOCH, MAX_MAILBOX_OFFSET, seqForWatermark, splitMailboxSeq } from './mailbox-seq';

const epochArb = fc.integer({ min: 0, max: MAX_MAILBOX_EPOCH });
const offsetArb = fc.bigInt({ min: 0n, max: MAX_MAILBOX_OFFSET });

describe('mailbox seq layout', () => {
  it('golden vectors', () => {
    expect(composeMailboxSeq(0, 0n)).toBe(1n);
    expect(composeMailboxSeq(1, 0n)).toBe(0x8000_0000_0001n);
    expect(composeMailboxSeq(3, 41n)).toBe((3n << 47n) | 42n);
    expect(composeMailboxSeq(MAX_MAILBOX_EPOCH, MAX_MAILBOX_OFFSET)).toBe(U63_MAX);
    expect(epochStartSeq(2)).toBe(0x1_0000_0000_0000n);
  });

  it('compose/split round-trips and never sets bit 63', () => {
    fc.assert(
      fc.property(epochArb, offsetArb, (epoch, offset) => {
        const seq = composeMailboxSeq(epoch, offset);
        expect(seq >= 0n && seq <= U63_MAX).toBe(true);
        expect(splitMailboxSeq(seq)).toEqual({ epoch, offset });
        expect(assertSeqInEpoch(seq, epoch)).toEqual({ epoch, offset });
        expect(seq > epochStartSeq(epoch)).toBe(true);
      }),
    );
  });

  it('orders seqs by (epoch, offset)', () => {
    fc.assert(
      fc.property(epochArb, offsetArb, epochArb, offsetArb, (e1, o1, e2, o2) => {
        const expected = e1 !== e2 ? e1 < e2 : o1 < o2;
        expect(composeMailboxSeq(e1, o1) < composeMailboxSeq(e2, o2)).toBe(expected);
      }),
    );
  });

  it('the start of an epoch splits to a null offset and lies above the whole previous epoch', () => {
    expect(splitMailboxSeq(epochStartSeq(7))).toEqual({ epoch: 7, offset: null });
    expect(epochStartSeq(7) > composeMailboxSeq(6, MAX_MAILBOX_OFFSET)).toBe(true);
    expect(seqForWatermark(7, null)).toBe(epochStartSeq(7));
    expect(seqForWatermark(7, 10n)).toBe(composeMailboxSeq(7, 10n));
  });

  it('rejects out-of-range epoch or offset as an invariant violation', () => {
    expect(() => composeMailboxSeq(MAX_MAILBOX_EPOCH + 1, 0n)).toThrow(InvariantViolationError);
    expect(() => composeMailboxSeq(-1, 0n)).toThrow(InvariantViolationError);
    expect(() => composeMailboxSeq(1.5, 0n)).toThrow(InvariantViolationError);
    expect(() => composeMailboxSeq(0, MAX_MAILBOX_OFFSET + 1n)).toThrow(InvariantViolationError);
    expect(() => composeMailboxSeq(0, -1n)).toThrow(InvariantViolationError);
    expect(() => epochStartSeq(70000)).toThrow(InvariantViolationError);
  });

  it('rejects a caller seq with bit 63 set or negative', () => {
    expect(() => splitMailboxSeq(U63_MAX + 1n)).toThrow(InvalidInputError);
    expect(() => splitMailboxSeq(-1n)).toThrow(InvalidInputError);
  });

  it('epoch mismatch is EpochMismatchError, for entry seqs and epoch starts alike', () => {
    fc.assert(
      fc.property(epochArb, epochArb, offsetArb, (e, other, offset) => {
        fc.pre(e !== other);
        expect(() => assertSeqInEpoch(composeMailboxSeq(other, offset), e)).toThrow(EpochMismatchError);
        expect(() => assertSeqInEpoch(epochStartSeq(other), e)).toThrow(EpochMismatchError);
      }),
    );
  });
});
