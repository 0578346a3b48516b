import { hashTagOf } from './hash-tag';

/** Redis Cluster's slot count. */
export const CLUSTER_SLOTS = 16_384;

const CRC16_TABLE = (() => {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 8;
    for (let b = 0; b < 8; b++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[i] = crc;
  }
  return table;
})();

/** CRC16-CCITT (XMODEM), the checksum Redis Cluster hashes keys with. */
function crc16(bytes: Buffer): number {
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) & 0xffff) ^ CRC16_TABLE[((crc >> 8) ^ byte) & 0xff]!;
  return crc;
}

/** The cluster slot of `key` (CRC16 of its hash tag, modulo 16 384), as `CLUSTER KEYSLOT` answers. */
export function keySlot(key: string): number {
  return crc16(Buffer.from(hashTagOf(key))) % CLUSTER_SLOTS;
}
