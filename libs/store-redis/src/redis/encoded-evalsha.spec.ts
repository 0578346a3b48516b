import { createHash } from 'node:crypto';
import { Command } from 'ioredis';
import { LUA_SCRIPTS } from '../generated/lua-scripts';
import { encodeEvalsha } from './encoded-evalsha';

/** The bytes ioredis itself writes for the same EVALSHA (Buffer mode when any argument is a Buffer). */
function driverBytes(lua: string, keys: string[], args: (string | Buffer)[]): Buffer {
  const sha = createHash('sha1').update(lua).digest('hex');
  const w = new Command('evalsha', [sha, String(keys.length), ...keys, ...args]).toWritable({});
  return typeof w === 'string' ? Buffer.from(w) : w;
}

describe('encodeEvalsha', () => {
  const s = LUA_SCRIPTS.claimCommitV1;
  const keys = ['ns:{cs:1}:commit:ab', 'ns:{cs:1}:recovery', 'ns:{cs:1}:aux'];

  it('writes the bytes ioredis writes for strings, Buffers, empty values and multi-byte text', () => {
    const args = ['0000000000000001', Buffer.from([0, 13, 10, 255]), '', Buffer.alloc(0), 'ü€', Buffer.from('tail'), '42'];
    expect(encodeEvalsha('claimCommitV1', keys, args).equals(driverBytes(s.lua, keys, args))).toBe(true);
  });

  it('handles a call without Buffers and one that ends with a Buffer', () => {
    expect(encodeEvalsha('claimCommitV1', keys, ['a', 'bc']).equals(driverBytes(s.lua, keys, ['a', 'bc']))).toBe(true);
    const args = ['x', Buffer.alloc(300, 7)];
    expect(encodeEvalsha('claimCommitV1', keys, args).equals(driverBytes(s.lua, keys, args))).toBe(true);
  });
});
