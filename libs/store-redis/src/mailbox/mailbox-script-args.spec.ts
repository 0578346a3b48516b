import { InvariantViolationError } from '@qim/store-core';
import type { Id128 } from '@qim/store-core';
import { RedisKeys } from '../keys/redis-keys';
import { expectClusterSafe } from '../testing/single-tag';
import {
  advanceFloorCall,
  advanceWatermarkCall,
  appendEntriesCall,
  beginDispatchCall,
  chunkCompletedCall,
  countDispatchFactsCall,
  declaredChunks,
  dispatchReadCall,
  gcFixDeadlineCall,
  gcScheduleChildrenCall,
  gcScheduleProgressCall,
  gcSweepCall,
  inspectRetentionCall,
  laneWatermarkCall,
  markChunkCompletedCall,
  rangeScanCall,
  truncateBeforeCall,
} from './mailbox-script-args';
import { NO_META } from './stored-retention-meta';

const id = (c: string): Id128 => c.repeat(32) as Id128;
const keys = new RedisKeys('t');
const user = keys.user(id('a'), id('b'));
const shard = keys.shard(9);
const NOW = 1_700_000_000_000n;
const NOW_HEX = '0000018bcfe56800';

describe('mailbox script argument builders', () => {
  it('append: guard, new meta, live days, released proof days, then 7 arguments per entry', () => {
    const call = appendEntriesCall(user, {
      now: NOW,
      graceMs: 5000n,
      expected: NO_META,
      next: ['4', '0000000000000001', '', '', Buffer.from('L')],
      liveDays: [19_000, 19_001],
      released: [{ day: 18_990, expiresAt: 42n }],
      entries: [{ epoch: 3, day: 19_001, seq: 0x18000000000001n, expiresAt: NOW, live: true, bytes: Buffer.from('E') }],
    });
    expectClusterSafe(call);
    expect(call.keys).toEqual([user.meta]);
    expect(call.args).toEqual([
      NOW_HEX,
      user.prefix,
      '5000',
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
      '1',
      '3',
      '19001',
      '0018000000000001',
      NOW_HEX,
      '1700000000000',
      '1',
      Buffer.from('E'),
    ]);
    const unchanged = appendEntriesCall(user, { now: NOW, graceMs: 5000n, expected: NO_META, next: null, liveDays: [], released: [], entries: [] });
    expect(unchanged.args.slice(8, 16)).toEqual(['', '', '', '', '', '', '', '0']);
  });

  it('inspect, range scan and trim', () => {
    const inspect = inspectRetentionCall(user, 1000n, NO_META, ['4', '2', '3', '4', Buffer.alloc(0)], [{ day: 1, expiresAt: 2n }]);
    expect(inspect.args).toEqual([user.prefix, '1000', '', '', '', '', '', '4', '2', '3', '4', Buffer.alloc(0), '1:2']);
    const scan = rangeScanCall(user, NOW, 1n, 2n, 11, 7);
    expect(scan.keys).toEqual([user.meta, user.trim]);
    expect(scan.args).toEqual([NOW_HEX, '0000000000000001', '0000000000000002', '11', '7', user.prefix]);
    const trim = truncateBeforeCall(user, 255n);
    expect(trim.args).toEqual(['00000000000000ff']);
    for (const call of [inspect, scan, trim]) expectClusterSafe(call);
    expect(() => truncateBeforeCall(user, 1n << 63n)).toThrow(InvariantViolationError);
  });

  it('declared chunks: only lanes with chunks, and the total', () => {
    const counts = Array.from({ length: 64 }, () => 0);
    counts[3] = 2;
    counts[60] = 1;
    expect(declaredChunks(counts)).toEqual({ list: '3:2,60:1', total: 3 });
    expect(declaredChunks(Array.from({ length: 64 }, () => 0))).toEqual({ list: '', total: 0 });
  });

  it('dispatch calls stay inside the shard tag', () => {
    const d = id('c');
    const receipt = { dispatchId: d, canonicalOffset: 5n, mailboxSeq: 6n, digest: Buffer.alloc(32, 2) };
    const begin = beginDispatchCall(shard, { now: NOW, offset: 5n, dispatchId: d, digest: receipt.digest, manifest: Buffer.from('M'), mailboxSeq: 6n, chunkCounts: [1] });
    expect(begin.keys).toEqual([shard.dispatch(d), shard.sourceIndex, shard.completedIndex]);
    expect(begin.args).toEqual([NOW_HEX, '0000000000000005', d, Buffer.alloc(32, 2), Buffer.from('M'), '0000000000000006', '0:1', '1', shard.prefix, '1700000000000']);
    const mark = markChunkCompletedCall(shard, NOW, receipt, 4, 2);
    expect(mark.args.slice(2)).toEqual([d, '0000000000000005', '0000000000000006', Buffer.alloc(32, 2), '4', '2', shard.prefix]);
    expect(chunkCompletedCall(shard, NOW, d, 4, 2).args[2]).toBe('4:2');
    const adv = advanceWatermarkCall(shard, NOW, 7, null, 10n);
    expect(adv.args).toEqual([NOW_HEX, '7', '', '000000000000000a', shard.prefix]);
    expect(advanceFloorCall(shard, 7, 9n, 10n).args).toEqual(['7', '0000000000000009', '000000000000000a']);
    const calls = [
      begin,
      mark,
      dispatchReadCall(shard, NOW, d),
      chunkCompletedCall(shard, NOW, d, 4, 2),
      laneWatermarkCall(shard, NOW, 7),
      adv,
      advanceFloorCall(shard, 7, null, 1n),
      gcFixDeadlineCall(shard, NOW, NOW, d, NOW + 60_000n),
      gcScheduleChildrenCall(shard, NOW, d, NOW + 60_000n, 1000n),
      gcScheduleProgressCall(shard, NOW, d, NOW + 60_000n, 1000n),
      gcSweepCall(shard, NOW, 10),
      countDispatchFactsCall(shard, NOW, d),
    ];
    for (const call of calls) expectClusterSafe(call);
  });
});
