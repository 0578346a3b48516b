import { InvariantViolationError } from '@qim/store-core';
import type { Id128 } from '@qim/store-core';
import { RedisKeys } from '../keys/redis-keys';
import { expectClusterSafe } from '../testing/single-tag';
import {
  advanceFrontierCall,
  appendEntriesCall,
  inspectRetentionCall,
  proofText,
  rangeScanCall,
  recordDispatchesCall,
  truncateBeforeCall,
  userAppendArgs,
} from './mailbox-script-args';
import { NO_META } from './stored-retention-meta';

const id = (c: string): Id128 => c.repeat(32) as Id128;
const keys = new RedisKeys('t');
const user = keys.user(id('a'), id('b'));
const shard = keys.shardFrontier(9, 3);
const NOW = 1_700_000_000_000n;
const NOW_HEX = '0000018bcfe56800';

describe('mailbox script argument builders', () => {
  it('append: per user its id, mode and entries (header + bytes); compare-and-set mode appends guard, new meta, days and grace', () => {
    const entry = {
      head: '0018000000000001' + NOW_HEX,
      tail: '1700000005000:19001',
      liveHeader: `0018000000000001${NOW_HEX}11700000005000:19001`,
      member: Buffer.from('E'),
    };
    const fast = userAppendArgs(user, { entries: [entry], live: null, cas: null });
    expect(fast).toEqual([user.id, 'f', '1', `0018000000000001${NOW_HEX}11700000005000:19001`, Buffer.from('E')]);
    const cas = userAppendArgs(user, {
      entries: [entry],
      live: [false],
      cas: {
        expected: NO_META,
        next: ['4', '0000000000000001', '', '', Buffer.from('L')],
        liveDays: [19_000, 19_001],
        released: [{ day: 18_990, expiresAt: 42n }],
        graceMs: 5000n,
      },
    });
    expect(cas).toEqual([
      user.id,
      'c',
      '1',
      `0018000000000001${NOW_HEX}01700000005000:19001`,
      Buffer.from('E'),
      '',
      '',
      '',
      '',
      '',
      '4',
      '0000000000000001',
      '',
      '',
      Buffer.from('L'),
      '19000,19001',
      '18990:42',
      '5000',
    ]);
    const unchanged = userAppendArgs(user, { entries: [], live: [], cas: { expected: NO_META, next: null, liveDays: [], released: [], graceMs: 1000n } });
    expect(unchanged.slice(1)).toEqual(['c', '0', '', '', '', '', '', '', '', '', '', '', '', '', '1000']);
  });

  it('append: one call per bucket carries its users in order, on the bucket key (one tag)', () => {
    const bucket = keys.mailboxBucket(user.bucket);
    const call = appendEntriesCall(bucket, { now: NOW, horizon: NOW + 16n }, 3, 'add', [
      ['u1', 'f', '0'],
      ['u2', 'f', '0'],
    ]);
    expectClusterSafe(call);
    expect(call.script).toBe('appendEntriesV5');
    expect(call.keys).toEqual([`t:{mb:${user.bucket}}:bucket`]);
    expect(user.prefix.startsWith(call.keys[0]!.slice(0, -'bucket'.length))).toBe(true);
    expect(call.args).toEqual([NOW_HEX, (NOW + 16n).toString(16).padStart(16, '0'), '3', 'add', '2', 'u1', 'f', '0', 'u2', 'f', '0']);
  });

  it('inspect, range scan and trim', () => {
    const proof = proofText([Buffer.from('3:0000000000000002'), Buffer.from('17')]);
    expect(proof).toBe('3:0000000000000002 17');
    const inspect = inspectRetentionCall(user, 1000n, NO_META, ['4', '2', '3', '4', Buffer.alloc(0)], [{ day: 1, expiresAt: 2n }], [proof]);
    expect(inspect.script).toBe('inspectRetentionV2');
    expect(inspect.args).toEqual([user.prefix, '1000', '', '', '', '', '', '4', '2', '3', '4', Buffer.alloc(0), '1:2', proof]);
    expect(() => inspectRetentionCall(user, 1000n, NO_META, NO_META, [{ day: 1, expiresAt: 2n }], [])).toThrow(InvariantViolationError);
    const scan = rangeScanCall(user, NOW, 1n, 2n, 11, 7);
    expect(scan.keys).toEqual([user.meta, user.trim]);
    expect(scan.args).toEqual([NOW_HEX, '0000000000000001', '0000000000000002', '11', '7', user.prefix, '']);
    expect(rangeScanCall(user, NOW, 1n, 2n, 11, 7, 4096).args[6]).toBe('4096');
    const trim = truncateBeforeCall(user, 255n);
    expect(trim.args).toEqual(['00000000000000ff']);
    for (const call of [inspect, scan, trim]) expectClusterSafe(call);
    expect(() => truncateBeforeCall(user, 1n << 63n)).toThrow(InvariantViolationError);
  });

  it('dispatch index and frontier calls stay inside the shard tag; 5 arguments per candidate', () => {
    const d = id('c');
    const record = recordDispatchesCall(shard, 3, {
      now: NOW,
      graceMs: 2000n,
      fromOffset: 5n,
      toOffset: 9n,
      candidates: [{ dispatchId: d, offset: 6n, digest: Buffer.alloc(32, 2), dedupeExpiresAt: NOW + 10n }],
    });
    expect(record.script).toBe('recordDispatchesV4');
    expect(record.keys).toEqual([shard.frontier]);
    expect(record.args).toEqual([
      NOW_HEX,
      shard.prefix,
      '2000',
      '3',
      '0000000000000005',
      '0000000000000009',
      '1',
      d,
      '0000000000000006',
      Buffer.alloc(32, 2),
      '0000018bcfe5680a',
      '1700000000010',
    ]);
    const advance = advanceFrontierCall(shard, { offset: 9n, fromOffset: 5n, expected: 4n, runId: 'r1' });
    expect(advance.script).toBe('advanceFrontierV2');
    expect(advance.args).toEqual(['0000000000000009', '0000000000000005', '0000000000000004', 'r1']);
    expect(advanceFrontierCall(shard, { offset: 9n, fromOffset: 5n, expected: null, runId: 'r1' }).args[2]).toBe('');
    for (const call of [record, advance]) expectClusterSafe(call);
    expect(() => advanceFrontierCall(shard, { offset: -1n, fromOffset: 0n, expected: null, runId: 'r1' })).toThrow(InvariantViolationError);
  });
});
