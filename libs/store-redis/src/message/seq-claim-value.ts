import { CorruptEntryError, id128FromBytes, id128ToBytes } from '@qim/store-core';
import type { Id128, SeqClaim } from '@qim/store-core';
import { u64FromHex16, u64ToHex16 } from '../redis/hex64';

/**
 * The stored form of a seq claim (`claim-seq-v1-2.lua`), 112 bytes: identity (32 bytes) | seq (16 hex)
 * | message id (32 hex) | created_at (16 hex ms) | expiry (16 hex ms). The first 96 bytes are what
 * `put-record-v1-4.lua` compares against an intent.
 */
export const SEQ_CLAIM_BYTES = 112;

/** The claim's first 96 bytes as an intent with these coordinates must find them stored. */
export function seqClaimBody(c: SeqClaim): Buffer {
  return Buffer.concat([Buffer.from(c.identity), Buffer.from(`${u64ToHex16(c.seq, 'seq')}${c.messageId}${u64ToHex16(c.createdAt, 'createdAt')}`, 'latin1')]);
}

/** A stored claim; `CorruptEntryError` when malformed. */
export function parseSeqClaim(raw: Buffer): SeqClaim & { readonly expiresAt: bigint } {
  if (raw.length !== SEQ_CLAIM_BYTES) throw new CorruptEntryError(`stored seq claim has ${raw.length} bytes, expected ${SEQ_CLAIM_BYTES}`);
  const text = raw.subarray(32).toString('latin1');
  const messageId = text.slice(16, 48);
  if (!/^[0-9a-f]{32}$/.test(messageId)) throw new CorruptEntryError('stored seq claim has a malformed message id');
  return {
    identity: Buffer.from(raw.subarray(0, 32)),
    seq: u64FromHex16(text.slice(0, 16), 'claimed seq'),
    messageId: messageId as Id128,
    createdAt: u64FromHex16(text.slice(48, 64), 'claimed created_at'),
    expiresAt: u64FromHex16(text.slice(64, 80), 'claim expiry'),
  };
}

/** Recipients as stored while a commit is CLAIMED: 16 bytes each, in order. */
export function packIds(ids: readonly Id128[]): Buffer {
  return Buffer.concat(ids.map(id128ToBytes));
}

export function unpackIds(raw: Buffer): Id128[] {
  if (raw.length % 16 !== 0) throw new CorruptEntryError('stored recipients are not a whole number of ids');
  const ids: Id128[] = [];
  for (let i = 0; i < raw.length; i += 16) ids.push(id128FromBytes(raw.subarray(i, i + 16)));
  return ids;
}
