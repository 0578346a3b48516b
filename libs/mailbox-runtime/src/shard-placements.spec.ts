import type { Id128 } from '@qim/store-core';
import { InvalidInputError, shardOf } from '@qim/store-core';
import { ShardPlacements } from './shard-placements';

const hex = (n: number) => n.toString(16).padStart(32, '0') as Id128;

describe('ShardPlacements', () => {
  it('places every user as shardOf does, again and again, also past its capacity', () => {
    const tenants = [hex(0xa1), hex(0xa2)];
    const users = Array.from({ length: 40 }, (_, i) => hex(i + 1));
    const p = new ShardPlacements(7, 8);
    for (let round = 0; round < 3; round++) {
      for (const t of tenants) for (const u of users) expect(p.of(t, u)).toBe(shardOf(t, u, 7));
    }
  });

  it('keeps tenants apart: the same user id in two tenants is placed per tenant', () => {
    const p = new ShardPlacements(64);
    const differ = Array.from({ length: 20 }, (_, i) => hex(i + 1)).filter((u) => shardOf(hex(0xa1), u, 64) !== shardOf(hex(0xa2), u, 64));
    expect(differ.length).toBeGreaterThan(0);
    for (const u of differ) expect([p.of(hex(0xa1), u), p.of(hex(0xa2), u)]).toEqual([shardOf(hex(0xa1), u, 64), shardOf(hex(0xa2), u, 64)]);
  });

  it('refuses an invalid shard count like shardOf', () => {
    expect(() => new ShardPlacements(0).of(hex(1), hex(2))).toThrow(InvalidInputError);
  });
});
