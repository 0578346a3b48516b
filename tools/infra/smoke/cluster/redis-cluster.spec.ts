import { randomUUID } from 'node:crypto';
import Redis, { Cluster } from 'ioredis';
import { requireEnv } from '../env';
import { infra, until } from './infra-cli';

// Read at module load so a missing variable fails the suite instead of skipping it.
const nodes = requireEnv('QIM_TEST_REDIS_CLUSTER_NODES')
  .split(',')
  .map((hp) => {
    const match = /^([^:]+):(\d+)$/.exec(hp.trim());
    if (!match) throw new Error(`QIM_TEST_REDIS_CLUSTER_NODES: '${hp}' is not host:port`);
    return { host: match[1]!, port: Number(match[2]) };
  });

jest.setTimeout(300_000);

interface ClusterNode {
  readonly id: string;
  readonly port: number;
  readonly role: 'master' | 'slave';
  readonly masterId: string;
  readonly failing: boolean;
  readonly ranges: ReadonlyArray<readonly [number, number]>;
}

/** CLUSTER NODES as seen by the node on `port`. */
async function clusterNodes(port: number): Promise<ClusterNode[]> {
  const r = direct(port);
  try {
    const text = (await r.cluster('NODES')) as string;
    return text
      .trim()
      .split('\n')
      .map((line) => {
        const [id, addr, flags, masterId, , , , , ...slots] = line.split(' ');
        const flagList = flags!.split(',');
        return {
          id: id!,
          port: Number(/:(\d+)@/.exec(addr!)![1]),
          role: flagList.includes('master') ? 'master' : 'slave',
          masterId: masterId!,
          failing: flagList.includes('fail') || flagList.includes('fail?'),
          ranges: slots
            .filter((s) => !s.startsWith('['))
            .map((s) => {
              const [a, b] = s.split('-').map(Number);
              return [a!, b ?? a!] as const;
            }),
        };
      });
  } finally {
    r.disconnect();
  }
}

function direct(port: number): Redis {
  const r = new Redis({ host: '127.0.0.1', port, lazyConnect: false, maxRetriesPerRequest: 1, retryStrategy: () => null });
  r.on('error', () => undefined);
  return r;
}

function clusterClient(): Cluster {
  const c = new Cluster(nodes, { redisOptions: { connectTimeout: 2000 } });
  c.on('error', () => undefined);
  return c;
}

/** A key of this run whose slot the given primary owns. */
async function keyOwnedBy(master: ClusterNode, runId: string): Promise<string> {
  const r = direct(master.port);
  try {
    for (let i = 0; i < 10_000; i++) {
      const key = `qim:infra:smoke:{${runId}-${i}}`;
      const slot = (await r.cluster('KEYSLOT', key)) as number;
      if (master.ranges.some(([a, b]) => slot >= a && slot <= b)) return key;
    }
  } finally {
    r.disconnect();
  }
  throw new Error(`no key found in the slots of ${master.port}`);
}

describe('Redis Cluster smoke (3 primaries + 3 replicas at QIM_TEST_REDIS_CLUSTER_NODES)', () => {
  const runId = randomUUID();
  let killed: number | undefined;

  afterAll(() => {
    // A failed expectation must not leave the cluster one node short for the next user.
    if (killed !== undefined) infra('redis-cluster-start', String(killed));
  });

  it('has three primaries owning all slots, each with one replica, and serves a key on each primary', async () => {
    const view = await clusterNodes(nodes[0]!.port);
    const masters = view.filter((n) => n.role === 'master');
    expect(masters).toHaveLength(3);
    expect(view.filter((n) => n.role === 'slave')).toHaveLength(3);
    expect(view.filter((n) => n.failing)).toEqual([]);
    for (const m of masters) expect(view.filter((n) => n.masterId === m.id)).toHaveLength(1);
    const slots = masters.flatMap((m) => m.ranges).reduce((sum, [a, b]) => sum + (b - a + 1), 0);
    expect(slots).toBe(16384);

    const cluster = clusterClient();
    try {
      for (const m of masters) {
        const key = await keyOwnedBy(m, runId);
        await cluster.set(key, `on-${m.port}`, 'EX', 300);
        expect(await cluster.get(key)).toBe(`on-${m.port}`);
        // The key lives on that primary: a plain connection to it reads it without a redirect.
        const r = direct(m.port);
        try {
          expect(await r.get(key)).toBe(`on-${m.port}`);
        } finally {
          r.disconnect();
        }
      }
    } finally {
      cluster.disconnect();
    }
  });

  it('promotes the replica of a kill -9ed primary, keeps its replicated key, and takes the old primary back as a replica', async () => {
    const before = await clusterNodes(nodes[0]!.port);
    const victim = before.find((n) => n.role === 'master')!;
    const replica = before.find((n) => n.masterId === victim.id)!;
    const key = await keyOwnedBy(victim, `${runId}-failover`);

    // Written on the primary and acknowledged by its replica (WAIT), so the promotion keeps it.
    const onVictim = direct(victim.port);
    try {
      await onVictim.set(key, 'survives', 'EX', 300);
      expect(await onVictim.wait(1, 10_000)).toBe(1);
    } finally {
      onVictim.disconnect();
    }
    const onReplica = direct(replica.port);
    const timeout = Number(((await onReplica.config('GET', 'cluster-node-timeout')) as string[])[1]);
    onReplica.disconnect();

    infra('redis-cluster-kill', String(victim.port));
    killed = victim.port;
    const t0 = Date.now();
    // Failover starts once the primary is unreachable for cluster-node-timeout, plus the
    // election delay (0.5–1 s, + 1 s per replica rank); four timeouts bound it generously.
    await until(`replica ${replica.port} promoted`, 4 * timeout + 5_000, async () => {
      const view = await clusterNodes(replica.port);
      return view.find((n) => n.id === replica.id)?.role === 'master' ? true : undefined;
    });
    const promotedMs = Date.now() - t0;
    process.stderr.write(`[smoke] replica ${replica.port} promoted ${promotedMs} ms after the kill (node timeout ${timeout} ms)\n`);

    const cluster = clusterClient();
    try {
      const read = await until('key readable through the cluster', 30_000, async () => (await cluster.get(key)) ?? undefined);
      expect(read).toBe('survives');
    } finally {
      cluster.disconnect();
    }

    infra('redis-cluster-start', String(victim.port));
    killed = undefined;
    const after = await clusterNodes(replica.port);
    const old = after.find((n) => n.id === victim.id)!;
    expect(old.role).toBe('slave');
    expect(old.masterId).toBe(replica.id);
    expect(after.filter((n) => n.role === 'master')).toHaveLength(3);
    expect(after.filter((n) => n.role === 'slave')).toHaveLength(3);
    const onOld = direct(victim.port);
    try {
      expect(((await onOld.role()) as unknown[])[0]).toBe('slave');
    } finally {
      onOld.disconnect();
    }
  });
});
