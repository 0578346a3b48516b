import { createHash } from 'node:crypto';
import { InvalidInputError } from '@qim/store-core';
import type { Id128 } from '@qim/store-core';
import { COMMIT_SHARDS, EPHEMERAL_REGISTRY_SHARDS, MAILBOX_BUCKETS, RedisKeys } from './redis-keys';
import { hashTagOf } from './hash-tag';

const id = (c: string): Id128 => c.repeat(32) as Id128;

describe('RedisKeys', () => {
  const keys = new RedisKeys('qim');

  it('refuses namespaces that could break the key grammar or a hash tag', () => {
    for (const bad of ['', 'a{b', 'a}b', 'with space', 'x'.repeat(65)]) expect(() => new RedisKeys(bad)).toThrow(InvalidInputError);
  });

  it('commit keys: one shard tag holds the commit hash, its recovery index and aux index', () => {
    const k = keys.commit({ tenantId: id('a'), senderId: id('b'), clientMessageId: id('c') });
    expect(k.shard).toBeGreaterThanOrEqual(0);
    expect(k.shard).toBeLessThan(COMMIT_SHARDS);
    expect(k.member).toBe(`${id('a')}${id('b')}${id('c')}`);
    expect(k.hash).toBe(`qim:{cs:${k.shard}}:commit:${k.member}`);
    expect(new Set([k.hash, k.recovery, k.aux, `${k.commitPrefix}x`].map(hashTagOf))).toEqual(new Set([`cs:${k.shard}`]));
  });

  it('mailbox buckets spread users over all MAILBOX_BUCKETS tags, deterministically', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 20_000; i++) seen.add(keys.mailboxBucketOf(id('1'), i.toString(16).padStart(32, '0') as Id128));
    expect(seen.size).toBe(MAILBOX_BUCKETS);
    expect(Math.max(...seen)).toBe(MAILBOX_BUCKETS - 1);
    expect(keys.mailboxBucketOf(id('1'), id('2'))).toBe(new RedisKeys('other').mailboxBucketOf(id('1'), id('2')));
  });

  it('a mailbox bucket is SHA-256("qim.redis.mailbox-bucket\\0" ‖ tenant ‖ user)[0..4] mod 256, remembered or not', () => {
    const direct = (t: Id128, u: Id128): number =>
      createHash('sha256').update('qim.redis.mailbox-bucket\0').update(Buffer.from(t, 'hex')).update(Buffer.from(u, 'hex')).digest().readUInt32BE(0) %
      MAILBOX_BUCKETS;
    const fresh = new RedisKeys('qim');
    const users = Array.from({ length: 70_000 }, (_, i) => i.toString(16).padStart(32, '0') as Id128);
    // Twice over more users than the memo holds: the second pass is served partly from the memo, partly recomputed after a reset.
    for (const pass of [1, 2]) {
      for (let i = 0; i < users.length; i += 997) expect([pass, fresh.mailboxBucketOf(id('7'), users[i]!)]).toEqual([pass, direct(id('7'), users[i]!)]);
      for (const u of users) fresh.mailboxBucketOf(id('7'), u);
    }
  });

  it('commit shards spread keys (deterministic, all shards used)', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      const hex = i.toString(16).padStart(32, '0') as Id128;
      seen.add(keys.commitShardOf({ tenantId: id('1'), senderId: id('2'), clientMessageId: hex }));
    }
    expect(seen.size).toBe(COMMIT_SHARDS);
    const k = { tenantId: id('1'), senderId: id('2'), clientMessageId: id('3') };
    expect(keys.commitShardOf(k)).toBe(keys.commitShardOf({ ...k }));
  });

  it('conversation keys share the conversation tag; records are keyed by 16-hex seq', () => {
    const c = keys.conversation(id('a'), id('d'));
    expect(c.record(10n)).toBe(`qim:{cv:${id('a')}${id('d')}}:rec:000000000000000a`);
    expect(new Set([c.seq, c.index, c.expiry, c.record(1n), c.seqClaim('m'), `${c.recordPrefix}x`, `${c.prefix}x`].map(hashTagOf))).toEqual(
      new Set([`cv:${id('a')}${id('d')}`]),
    );
    expect(c.seqClaim('m')).toBe(`qim:{cv:${id('a')}${id('d')}}:claim:m`);
    expect(c.registry).toMatch(new RegExp(`^qim:\\{eg:(\\d+)\\}:conversations$`));
    expect(Number(hashTagOf(c.registry).slice(3))).toBeLessThan(EPHEMERAL_REGISTRY_SHARDS);
  });

  it('user keys share their bucket tag (with the bucket key) under u2:<tenant><user>:; frontier and dispatch index of every epoch share the shard tag', () => {
    const u = keys.user(id('a'), id('e'));
    expect(u.bucket).toBe(keys.mailboxBucketOf(id('a'), id('e')));
    expect(u.id).toBe(`${id('a')}${id('e')}`);
    expect(u.prefix).toBe(`qim:{mb:${u.bucket}}:u2:${u.id}:`);
    expect(keys.mailboxBucket(u.bucket).key).toBe(`qim:{mb:${u.bucket}}:bucket`);
    expect(new Set([u.meta, u.trim, u.proof(20_000), u.dayIndex(3, 20_000), `${u.prefix}x`, keys.mailboxBucket(u.bucket).key].map(hashTagOf))).toEqual(
      new Set([`mb:${u.bucket}`]),
    );
    const s = keys.shardFrontier(42, 7);
    const d = id('f');
    expect(s.frontier).toBe('qim:{sf:42}:mbd-frontier:7');
    expect(s.oldLayoutFrontiers).toEqual([
      { layout: 'per-user-layout', key: 'qim:{sf:42}:frontier:7' },
      { layout: 'entry-key-layout', key: 'qim:{sf:42}:mb-frontier:7' },
    ]);
    expect(s.dispatchIndex(d)).toBe(`qim:{sf:42}:dix:7:${d}`);
    expect(s.dispatchIndex(d).startsWith(s.prefix)).toBe(true);
    const other = keys.shardFrontier(42, 8);
    expect(new Set([s.frontier, ...s.oldLayoutFrontiers.map((o) => o.key), s.dispatchIndex(d), other.frontier, other.dispatchIndex(d)].map(hashTagOf))).toEqual(
      new Set(['sf:42']),
    );
    expect(other.frontier).not.toBe(s.frontier);
  });

  it('writer coordination: leases and floors under `writers` in the stored layout, members as stored before, claims beside their commit', () => {
    expect(keys.writerLease(3)).toEqual({ lease: 'qim:{writers}:lease:3', hlcFloor: 'qim:{writers}:hlc:3' });
    for (const bad of [-1, 1.5, 65_536]) expect(() => keys.writerLease(bad)).toThrow(InvalidInputError);
    expect(keys.membership(id('a'), id('c'))).toBe(`qim:members:{${id('a')}:${id('c')}}`);
    expect(hashTagOf(keys.membership(id('a'), id('c')))).toBe(`${id('a')}:${id('c')}`);
    const key = { tenantId: id('a'), senderId: id('b'), clientMessageId: id('c') };
    const claim = keys.recoveryClaim(key);
    expect(hashTagOf(claim)).toBe(hashTagOf(keys.commit(key).hash));
    expect(claim).toBe(`qim:{cs:${keys.commitShardOf(key)}}:recovery-claim:${keys.commit(key).member}`);
  });
});
