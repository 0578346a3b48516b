import type { Id128 } from '@qim/store-core';
import { MemoryMembership } from './memory-membership';

const id = (n: number) => n.toString(16).padStart(32, '0') as Id128;

describe('MemoryMembership', () => {
  it('adds, lists sorted, checks and removes', async () => {
    const m = new MemoryMembership();
    expect(await m.add(id(1), id(9), [id(3), id(2), id(3)], 10)).toBe(2);
    expect(await m.members(id(1), id(9))).toEqual([id(2), id(3)]);
    expect(await m.isMember(id(1), id(9), id(2))).toBe(true);
    expect(await m.isMember(id(2), id(9), id(2))).toBe(false);
    expect(await m.remove(id(1), id(9), [id(2), id(7)])).toBe(1);
  });

  it('refuses to grow past the cap and adds nothing', async () => {
    const m = new MemoryMembership();
    await m.add(id(1), id(9), [id(1), id(2)], 3);
    await expect(m.add(id(1), id(9), [id(3), id(4)], 3)).rejects.toMatchObject({ code: 'FANOUT_LIMIT' });
    expect(await m.members(id(1), id(9))).toEqual([id(1), id(2)]);
    expect(await m.add(id(1), id(9), [id(2), id(3)], 3)).toBe(3);
  });
});
