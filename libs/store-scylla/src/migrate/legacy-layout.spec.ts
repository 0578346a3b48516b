import { LEGACY_LAYOUT_TABLES, legacyLayoutProblem } from './legacy-layout';

describe('legacyLayoutProblem (ADR-0022 §7)', () => {
  it('names every lane-watermark table the keyspace still holds, with the operator advice', () => {
    expect(legacyLayoutProblem('qim', ['mailbox_entry', 'dispatch_chunk', 'lane_watermark'])).toBe(
      'keyspace qim has dispatch_chunk, lane_watermark, created by the lane-watermark layout — ' +
        'deploy the frontier layout in a new keyspace, or drop those tables after draining the mailbox',
    );
  });

  it('lists the six replaced tables and accepts a keyspace without any of them', () => {
    expect([...LEGACY_LAYOUT_TABLES].sort()).toEqual([
      'completed_dispatch',
      'dispatch_chunk',
      'dispatch_observation',
      'dispatch_progress',
      'lane_dispatch',
      'lane_watermark',
    ]);
    expect(legacyLayoutProblem('qim', ['mailbox_entry', 'shard_frontier', 'dispatch_index', 'mailbox_retention_bucket_v2'])).toBeNull();
    for (const t of LEGACY_LAYOUT_TABLES) expect(legacyLayoutProblem('qim', [t])).toContain(`has ${t},`);
  });
});
