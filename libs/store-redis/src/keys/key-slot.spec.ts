import { keySlot } from './key-slot';

describe('keySlot', () => {
  it('matches the Redis Cluster specification examples and hashes only the tag', () => {
    // CRC16 of "123456789" is 0x31C3 (the spec's check value); 12739 = 0x31C3 % 16384.
    expect(keySlot('123456789')).toBe(0x31c3 % 16_384);
    expect(keySlot('foo')).toBe(12_182);
    expect(keySlot('qim:{abc}:seq')).toBe(keySlot('abc'));
    expect(keySlot('a{}b')).toBe(keySlot('a{}b'));
    expect(keySlot('{}x')).not.toBe(keySlot('x'));
  });
});
