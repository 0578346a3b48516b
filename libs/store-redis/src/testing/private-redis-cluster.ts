import { Redis } from 'ioredis';
import { RedisServerProcess } from './redis-server-process';

/** One primary of a private cluster, its replica, and a direct client of each. */
export interface PrivateShard {
  readonly primary: RedisServerProcess;
  readonly replica: RedisServerProcess;
  readonly direct: { readonly primary: Redis; readonly replica: Redis };
  /** First and last slot the primary serves. */
  readonly slots: readonly [number, number];
}

const SLOTS = 16_384;

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`private cluster: ${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A Redis Cluster of this spec's own `redis-server` processes (`RedisServerProcess`, free ports):
 * `shards` primaries with the slots split evenly, each with one replica, so a spec may freeze one
 * primary's replica while the others acknowledge. `cluster-node-timeout` is long (30 s): a frozen
 * replica is never taken for failed within a spec, and nothing fails over.
 */
export class PrivateRedisCluster {
  private constructor(readonly shards: readonly PrivateShard[]) {}

  /** `host:port` of every primary (`parseClusterNodes` input). */
  get seeds(): string {
    return this.shards.map((s) => `127.0.0.1:${s.primary.port}`).join(',');
  }

  static async start(shards: number): Promise<PrivateRedisCluster> {
    const args = ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '30000'];
    const started: PrivateShard[] = [];
    const cluster = new PrivateRedisCluster(started);
    try {
      for (let i = 0; i < shards; i++) {
        const primary = await RedisServerProcess.start(args);
        const replica = await RedisServerProcess.start(args);
        const from = Math.floor((i * SLOTS) / shards);
        const to = Math.floor(((i + 1) * SLOTS) / shards) - 1;
        started.push({ primary, replica, direct: { primary: new Redis(primary.url), replica: new Redis(replica.url) }, slots: [from, to] });
      }
      const [first, ...others] = started;
      for (const [i, s] of started.entries()) {
        await s.direct.primary.call('CLUSTER', 'SET-CONFIG-EPOCH', String(i + 1));
        await s.direct.primary.call('CLUSTER', 'ADDSLOTSRANGE', String(s.slots[0]), String(s.slots[1]));
      }
      const meet = (r: RedisServerProcess) => first!.direct.primary.call('CLUSTER', 'MEET', '127.0.0.1', String(r.port));
      for (const s of others) await meet(s.primary);
      for (const s of started) await meet(s.replica);
      const everyone = started.flatMap((s) => [s.direct.primary, s.direct.replica]);
      await until('every node knows every other', async () => {
        const views = await Promise.all(everyone.map((r) => r.call('CLUSTER', 'NODES') as Promise<string>));
        return views.every((v) => v.trim().split('\n').length === everyone.length && !/handshake|noaddr/.test(v));
      });
      for (const s of started) {
        const id = (await s.direct.primary.call('CLUSTER', 'MYID')) as string;
        await s.direct.replica.call('CLUSTER', 'REPLICATE', id);
      }
      await until('cluster_state:ok and every replica online', async () => {
        for (const s of started) {
          const [state, p, r] = await Promise.all([
            s.direct.primary.cluster('INFO'),
            s.direct.primary.info('replication'),
            s.direct.replica.info('replication'),
          ]);
          if (!/^cluster_state:ok\r?$/m.test(state as string) || !/state=online/.test(p) || !/^master_link_status:up\r?$/m.test(r)) return false;
        }
        return true;
      });
      return cluster;
    } catch (e) {
      await cluster.stop();
      throw e;
    }
  }

  /** The shard whose primary serves `slot`. */
  shardOf(slot: number): PrivateShard {
    const s = this.shards.find((x) => slot >= x.slots[0] && slot <= x.slots[1]);
    if (s === undefined) throw new Error(`slot ${slot} out of range`);
    return s;
  }

  async stop(): Promise<void> {
    for (const s of this.shards) {
      s.direct.primary.disconnect();
      s.direct.replica.disconnect();
      await s.replica.stop();
      await s.primary.stop();
    }
  }
}
