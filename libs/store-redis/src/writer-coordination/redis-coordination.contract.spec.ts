import { describeCoordinationContract } from '@qim/store-contract/testing';
import { dropNamespace, testClient, testNamespace, testTarget } from '../testing/redis-test-env';
import { RedisWriterCoordination } from './redis-writer-coordination';

// Each case gets its own namespace (fresh writer ids); all of them share one prefix, dropped once at the end.
const suite = testNamespace();
let cases = 0;

afterAll(async () => {
  const admin = testClient();
  try {
    await dropNamespace(admin, `${suite}-*`);
  } finally {
    admin.disconnect();
  }
}, 120_000);

describeCoordinationContract('redis', async () => {
  const namespace = `${suite}-${++cases}`;
  const [a, b] = await Promise.all(['writer-a', 'writer-b'].map((owner) => RedisWriterCoordination.open(testTarget(), { namespace, owner })));
  const byOwner = new Map([
    ['writer-a', a!],
    ['writer-b', b!],
  ]);
  return {
    membership: a!.membership,
    leases: a!.leases,
    claimsOf: (owner) => {
      const c = byOwner.get(owner);
      if (c === undefined) throw new Error(`no coordination opened for ${owner}`);
      return c.claims;
    },
    close: async () => {
      await Promise.all([a!.close(), b!.close()]);
    },
  };
});

describe('redis writer coordination after its connection is gone', () => {
  it('answers every call with UnavailableError (the writer answers 503), never with driver errors', async () => {
    const c = await RedisWriterCoordination.open(testTarget(), { namespace: `${suite}-closed`, owner: 'w' });
    await c.close();
    const id = '0'.repeat(32) as never;
    const calls: Promise<unknown>[] = [
      c.membership.members(id, id),
      c.membership.count(id, id),
      c.membership.isMember(id, id, id),
      c.membership.add(id, id, [id], 10),
      c.membership.remove(id, id, [id]),
      c.leases.acquire(1, 1_000, 'tok'),
      c.leases.renew({ writerId: 0, token: 'tok', hlcFloor: 0n }, 1_000, 1n),
      c.claims.claim({ tenantId: id, senderId: id, clientMessageId: id }, 1_000),
      c.ping(),
    ];
    for (const p of calls) await expect(p).rejects.toMatchObject({ name: 'UnavailableError', code: 'UNAVAILABLE' });
  }, 60_000);
});
