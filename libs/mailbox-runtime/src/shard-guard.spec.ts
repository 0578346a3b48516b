import type { ShardPositions } from './shard-guard';
import { judgeShard, resetCommandFor } from './shard-guard';

const at = (p: Partial<ShardPositions>): ShardPositions => ({ shard: 3, epoch: 4, frontier: 99n, low: 0n, end: 120n, committed: 100n, pageRecords: 10, ...p });

describe('judgeShard', () => {
  it.each<[string, Partial<ShardPositions>]>([
    ['committed at frontier + 1', {}],
    ['committed behind the frontier (a page re-applied after a crash)', { committed: 90n }],
    ['nothing applied, nothing committed', { frontier: null, committed: null }],
    ['nothing applied, committed at the partition start', { frontier: null, committed: 40n, low: 40n }],
    ['no commit after the first page only', { frontier: 5n, committed: null }],
    ['caught up: end = frontier + 1', { end: 100n }],
  ])('lets the shard run: %s', (_what, p) => {
    expect(judgeShard(at(p))).toBeNull();
  });

  it('refuses a partition that ends at or below the frontier (topic recreated) and names a new epoch', () => {
    const r = judgeShard(at({ end: 3n, committed: null }));
    expect(r).toMatchObject({
      kind: 'topic-recreated',
      reason: "shard 3 epoch 4: the dispatch partition ends at offset 3 but the store's frontier is 99: the topic was recreated or truncated",
    });
    expect(r!.resolve).toContain('QIM_MAILBOX_EPOCH=5');
    expect(judgeShard(at({ end: 99n }))).toMatchObject({ kind: 'topic-recreated' });
  });

  it('refuses a partition whose records after the frontier were deleted', () => {
    expect(judgeShard(at({ low: 101n, committed: 101n }))).toMatchObject({
      kind: 'records-lost',
      reason: expect.stringContaining('records 100…100 were deleted'),
    });
    expect(judgeShard(at({ low: 100n, committed: 100n }))).toBeNull();
  });

  it('refuses a group ahead of the store with the admin command', () => {
    expect(judgeShard(at({ committed: 101n }))).toEqual({
      kind: 'group-ahead',
      reason: 'shard 3 epoch 4: the shard group committed offset 101 but the store has applied up to 99 (next 100): the group is ahead of the store',
      resolve: resetCommandFor(3),
    });
    expect(judgeShard(at({ frontier: null, committed: 1n }))).toMatchObject({
      kind: 'group-ahead',
      reason: expect.stringContaining('applied up to nothing (next 0)'),
    });
    expect(resetCommandFor(3)).toMatch(/^node dist\/apps\/admin\/main\.js reset-mailbox-offsets --shard 3 /);
  });

  it('refuses a missing committed offset once more than one page was applied', () => {
    expect(judgeShard(at({ committed: null, frontier: 10n }))).toMatchObject({ kind: 'group-lost' });
    expect(judgeShard(at({ committed: null, frontier: 9n }))).toBeNull();
  });
});
