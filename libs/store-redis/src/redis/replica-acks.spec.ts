import { UnavailableError, composeMailboxSeq } from '@qim/store-core';
import { ManualClock } from '@qim/store-core/testing';
import { Redis } from 'ioredis';
import { RedisMailboxStore } from '../mailbox/redis-mailbox-store';
import { SPEC_GC, rid } from '../testing/redis-mailbox-fixture';
import { RedisServerProcess } from '../testing/redis-server-process';
import { RedisWriterCoordination } from '../writer-coordination/redis-writer-coordination';
import { RedisIo } from './redis-io';

/** Resolves once `replica` is an online replica of `primary` with its link up. */
async function synced(primary: Redis, replica: Redis): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const [p, r] = await Promise.all([primary.info('replication'), replica.info('replication')]);
    if (/^connected_slaves:1\r?$/m.test(p) && /state=online/.test(p) && /^master_link_status:up\r?$/m.test(r)) return;
    if (Date.now() > deadline) throw new Error(`the private replica did not sync:\n${p}\n${r}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Issue 30 item 4 (ADR-0038): `WAIT` waits for the calling connection's own last write. A retried
 * step whose idempotent script writes nothing — the first attempt, on another connection, wrote and
 * then failed its WAIT — must still wait until a replica has that first write, or a failover loses
 * an acknowledged change. A private primary and replica of this spec (standalone-only: it starts
 * its own servers); the replica is frozen with SIGSTOP, so the moment it stops acknowledging is
 * chosen, not waited for. The first case is the scenario (it fails without the fence on
 * Redis ≥ 7.2, where only a propagated write moves a connection's WAIT offset; Redis 7.0 moves it
 * with every command); the second fails without the fence on any version.
 */
describe('replica acks: a retried step waits for the first attempt’s write', () => {
  let primary: RedisServerProcess;
  let replica: RedisServerProcess;
  const opened: { close(): Promise<void> }[] = [];
  let direct: { primary: Redis; replica: Redis };
  beforeAll(async () => {
    primary = await RedisServerProcess.start([]);
    replica = await RedisServerProcess.start(['--replicaof', '127.0.0.1', String(primary.port)]);
    direct = { primary: new Redis(primary.url), replica: new Redis(replica.url) };
    await synced(direct.primary, direct.replica);
  }, 30_000);
  afterAll(async () => {
    for (const o of opened.splice(0).reverse()) await o.close();
    direct?.primary.disconnect();
    direct?.replica.disconnect();
    await replica?.stop();
    await primary?.stop();
  });

  it(
    'store B’s retry of a membership change store A made fails with UnavailableError while the replica lacks it, ' + 'and succeeds once the replica has it',
    async () => {
      const namespace = `acks-${rid().slice(0, 8)}`;
      const open = async (owner: string, timeoutMs: number) => {
        const c = await RedisWriterCoordination.open(primary.url, { namespace, owner, replicaAcks: { min: 1, timeoutMs } });
        opened.push(c);
        return c;
      };
      // Bounds well above a replica's answer on a loaded machine (the frozen attempts wait them out).
      const a = await open('a', 1_500);
      const b = await open('b', 3_000);
      const [tenant, conv, first, second, third] = [rid(), rid(), rid(), rid(), rid()];
      // Both connections have written, and the replica acknowledged it, before it stops.
      await a.membership.add(tenant, conv, [first], 10);
      await b.membership.add(tenant, conv, [third], 10);

      replica.freeze();
      try {
        await expect(a.membership.add(tenant, conv, [second], 10)).rejects.toThrow(UnavailableError);
        expect(await direct.primary.sismember(`${namespace}:members:{${tenant}:${conv}}`, second)).toBe(1);
        // The retry's script finds the member and writes nothing; its WAIT must still cover A's write.
        await expect(b.membership.add(tenant, conv, [second], 10)).rejects.toThrow(UnavailableError);
      } finally {
        replica.thaw();
      }

      expect(await b.membership.add(tenant, conv, [second], 10)).toBe(3);
      // Answered only once the replica holds the change.
      expect(await direct.replica.sismember(`${namespace}:members:{${tenant}:${conv}}`, second)).toBe(1);
    },
    30_000,
  );

  it('truncateBefore is answered only once a replica holds the raised trim (a lost raise would give cursors below it their entries back)', async () => {
    const namespace = `acks-${rid().slice(0, 8)}`;
    const shardEpoch = { shard: 7, epoch: 3 };
    const open = (timeoutMs: number): RedisMailboxStore => {
      const s = new RedisMailboxStore({
        redis: new Redis(primary.url),
        namespace,
        clock: new ManualClock(BigInt(Date.now())),
        shardEpoch,
        gc: SPEC_GC,
        replicaAcks: { min: 1, timeoutMs },
      });
      opened.push(s);
      return s;
    };
    const a = open(1_500);
    const b = open(3_000);
    const [tenant, user] = [rid(), rid()];
    const seq = (offset: bigint): bigint => composeMailboxSeq(shardEpoch.epoch, offset);
    const trimKey = a.keys.user(tenant, user).trim;
    await a.truncateBefore(tenant, user, seq(3n));
    await b.truncateBefore(tenant, user, seq(2n));

    replica.freeze();
    try {
      await expect(a.truncateBefore(tenant, user, seq(5n))).rejects.toThrow(UnavailableError);
      expect(await direct.primary.get(trimKey)).toBe(seq(5n).toString(16).padStart(16, '0'));
      // The retry's script finds the trim raised and writes nothing; its WAIT must still cover A's raise.
      await expect(b.truncateBefore(tenant, user, seq(5n))).rejects.toThrow(UnavailableError);
    } finally {
      replica.thaw();
    }

    await b.truncateBefore(tenant, user, seq(5n));
    expect(await direct.replica.get(trimKey)).toBe(seq(5n).toString(16).padStart(16, '0'));
  }, 30_000);

  it(
    'replicated() on a connection that ran nothing since another connection wrote still waits for that write ' + '(a primary the retry did not touch)',
    async () => {
      // On Redis 7.0 a connection's WAIT offset moves with each of its commands, so the retry above is
      // covered by its own script call; a connection that sent nothing to the primary since (a primary
      // a retried page's scripts skipped) is not, and on Redis ≥ 7.2 only a propagated write moves it.
      const namespace = `acks-${rid().slice(0, 8)}`;
      const writer = new Redis(primary.url);
      const waiter = new Redis(primary.url);
      try {
        const io = new RedisIo(waiter, { namespace, replicaAcks: { min: 1, timeoutMs: 1_500 } });
        const key = `${namespace}:{t}:written-elsewhere`;
        await writer.set(key, 'before');
        await waiter.set(`${namespace}:{t}:own`, 'x');
        await io.replicated([key], 'spec step');
        replica.freeze();
        try {
          await writer.set(key, 'after');
          await expect(io.replicated([key], 'spec step')).rejects.toThrow(UnavailableError);
        } finally {
          replica.thaw();
        }
        await io.replicated([key], 'spec step');
        expect(await direct.replica.get(key)).toBe('after');
      } finally {
        writer.disconnect();
        waiter.disconnect();
      }
    },
    30_000,
  );
});
