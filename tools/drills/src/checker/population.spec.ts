import { readFileSync } from 'node:fs';
import path from 'node:path';
import { makePopulation, userShard } from './population';

const shardsOf = (tenant: string, users: readonly string[], count: number): Set<number> => new Set(users.map((u) => userShard(tenant, u, count)));

// store-core's golden vectors, read as data (the drills do not import store-core's code).
const golden = JSON.parse(readFileSync(path.resolve(__dirname, '../../../../libs/store-core/src/rules/sharding-golden.json'), 'utf8')) as {
  vectors: { tenant: string; user: string; shard16: number; shard1000: number }[];
};

describe('userShard, the checker’s copy of the placement rule', () => {
  it.each(golden.vectors.map((v) => [v.tenant, v.user, v.shard16, v.shard1000] as const))(
    'tenant %s user %s → shard16 %i, shard1000 %i',
    (t, u, s16, s1000) => {
      expect(userShard(t, u, 16)).toBe(s16);
      expect(userShard(t, u, 1000)).toBe(s1000);
    },
  );
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
