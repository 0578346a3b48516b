import { CorruptEntryError } from '@qim/store-core';
import type { Id128 } from '@qim/store-core';
import { packIds, parseSeqClaim, SEQ_CLAIM_BYTES, seqClaimBody, unpackIds } from './seq-claim-value';

const id = (c: string): Id128 => c.repeat(32) as Id128;

describe('seq claim value', () => {
  const claim = { identity: Buffer.alloc(32, 7), seq: 258n, messageId: id('e'), createdAt: 1_700_000_000_000n };

  it('body is identity | seq hex | message id | created hex (96 bytes), as claim-seq stores it before the expiry', () => {
    const body = seqClaimBody(claim);
    expect(body).toHaveLength(96);
    expect(body.subarray(32).toString('latin1')).toBe(`0000000000000102${id('e')}0000018bcfe56800`);
    const stored = Buffer.concat([body, Buffer.from('0000018bcfe56801', 'latin1')]);
    expect(stored).toHaveLength(SEQ_CLAIM_BYTES);
    expect(parseSeqClaim(stored)).toEqual({ ...claim, expiresAt: 1_700_000_000_001n });
  });

  it('a malformed stored claim is CorruptEntry', () => {
    expect(() => parseSeqClaim(Buffer.alloc(111))).toThrow(CorruptEntryError);
    const body = seqClaimBody(claim);
    expect(() => parseSeqClaim(Buffer.concat([body, Buffer.from('zzzzzzzzzzzzzzzz', 'latin1')]))).toThrow(CorruptEntryError);
    const badId = Buffer.concat([body.subarray(0, 48), Buffer.from('Z'.repeat(32), 'latin1'), body.subarray(80), Buffer.from('0000018bcfe56801', 'latin1')]);
    expect(() => parseSeqClaim(badId)).toThrow(CorruptEntryError);
  });

  it('recipients pack to 16 bytes each and back; a partial id is CorruptEntry', () => {
    const ids = [id('1'), id('a')];
    expect(packIds(ids)).toHaveLength(32);
    expect(unpackIds(packIds(ids))).toEqual(ids);
    expect(unpackIds(Buffer.alloc(0))).toEqual([]);
    expect(() => unpackIds(Buffer.alloc(17))).toThrow(CorruptEntryError);
  });
});
