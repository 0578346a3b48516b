import { makePopulation, userShard } from './population';

const shardsOf = (tenant: string, users: readonly string[], count: number): Set<number> => new Set(users.map((u) => userShard(tenant, u, count)));

const A = '00000000000000000000000000000001';
const B = '0123456789abcdef0123456789abcdef';
const C = 'ffffffffffffffffffffffffffffffff';
const D = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';

describe('userShard, the checker’s copy of the placement rule', () => {
  // The golden vectors of libs/store-core/src/rules/sharding.spec.ts.
  it.each([
    [A, A, 7, 423],
    [A, B, 8, 56],
    [A, C, 10, 722],
    [A, D, 4, 820],
    [B, A, 13, 589],
    [B, B, 4, 20],
    [B, C, 12, 980],
    [B, D, 5, 349],
  ])('tenant %s user %s → shard16 %i, shard1000 %i', (t, u, s16, s1000) => {
    expect(userShard(t, u, 16)).toBe(s16);
    expect(userShard(t, u, 1000)).toBe(s1000);
  });
});

describe('makePopulation', () => {
  it('with a shard count, the stable users cover every shard (200 populations of the short drills: 4 users, 2 shards)', () => {
    for (let i = 0; i < 200; i += 1) {
      const pop = makePopulation(3, 4, 3, 2);
      expect(shardsOf(pop.tenantId, pop.stableUsers, 2).size).toBe(2);
    }
  });

  it('covers as many shards as there are users, and no more', () => {
    const pop = makePopulation(2, 2, 3, 8);
    expect(shardsOf(pop.tenantId, pop.stableUsers, 8).size).toBe(2);
  });

  it('every stable user is a member of some conversation, so a probe into each conversation reaches each shard', () => {
    const pop = makePopulation(3, 4, 3, 2);
    const members = new Set([...pop.stableMembers.values()].flat());
    expect([...members].sort()).toEqual([...pop.stableUsers].sort());
  });

  it('refuses a shard count the sharding rule refuses', () => {
    expect(() => makePopulation(3, 4, 3, 0)).toThrow(/shardCount/);
  });
});
