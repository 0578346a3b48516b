import { InvalidInputError } from '../errors/domain-errors';
import type { Id128 } from '../model/ids';
import type { CommitSnapshot } from '../model/message';
import { ManualClock } from '../testing/manual-clock';
import type { MessageRecoveryScan } from '../ports/message-recovery-scan';
import type { DurableMessageCommitter } from './durable-message-committer';
import { RecoveryRunner } from './recovery-runner';

const id = (n: number): Id128 => n.toString(16).padStart(32, '0') as Id128;
const snapshotOf = (n: number): CommitSnapshot =>
  ({ state: 'RECORDED', intent: { key: { tenantId: id(1), senderId: id(2), clientMessageId: id(n) } } }) as unknown as CommitSnapshot;

function setup(
  snapshots: CommitSnapshot[],
  failOn: Set<number>,
): { store: MessageRecoveryScan; committer: DurableMessageCommitter; scans: [bigint, number][]; resumed: CommitSnapshot[] } {
  const scans: [bigint, number][] = [];
  const resumed: CommitSnapshot[] = [];
  const store: MessageRecoveryScan = {
    scanRecoverableCommits: async (cutoff: bigint, max: number) => {
      scans.push([cutoff, max]);
      return snapshots;
    },
  };
  const committer = {
    resume: async (s: CommitSnapshot) => {
      resumed.push(s);
      if (failOn.has(resumed.length)) throw new Error(`fail ${resumed.length}`);
      return { ...s, state: 'COMMITTED' };
    },
  } as unknown as DurableMessageCommitter;
  return { store, committer, scans, resumed };
}

describe('RecoveryRunner', () => {
  it('scans with cutoff now − grace and resumes every commit, counting outcomes', async () => {
    const snaps = [snapshotOf(1), snapshotOf(2), snapshotOf(3)];
    const { store, committer, scans, resumed } = setup(snaps, new Set());
    const report = await new RecoveryRunner(store, committer, { graceMs: 5_000n, maxItems: 10, clock: new ManualClock(60_000n) }).runOnce();
    expect(scans).toEqual([[55_000n, 10]]);
    expect(resumed).toEqual(snaps);
    expect(report).toEqual({ examined: 3, completed: 3, failed: 0, failures: [] });
  });

  it('one failed commit never stops the pass nor throws; it is collected', async () => {
    const snaps = [snapshotOf(1), snapshotOf(2), snapshotOf(3)];
    const { store, committer, resumed } = setup(snaps, new Set([2]));
    const report = await new RecoveryRunner(store, committer, { graceMs: 0n, maxItems: 3, clock: new ManualClock(1n) }).runOnce();
    expect(resumed).toHaveLength(3);
    expect(report.examined).toBe(3);
    expect(report.completed).toBe(2);
    expect(report.failed).toBe(1);
    expect(report.failures[0]!.key).toEqual(snaps[1]!.intent.key);
    expect(String(report.failures[0]!.error)).toContain('fail 2');
  });

  it('clamps the cutoff at 0 and propagates a failed scan', async () => {
    const { store, committer, scans } = setup([], new Set());
    expect(await new RecoveryRunner(store, committer, { graceMs: 10n, maxItems: 1, clock: new ManualClock(3n) }).runOnce()).toEqual({
      examined: 0,
      completed: 0,
      failed: 0,
      failures: [],
    });
    expect(scans).toEqual([[0n, 1]]);
    const broken: MessageRecoveryScan = { scanRecoverableCommits: async () => Promise.reject(new Error('scan down')) };
    await expect(new RecoveryRunner(broken, committer, { graceMs: 0n, maxItems: 1, clock: new ManualClock(3n) }).runOnce()).rejects.toThrow('scan down');
  });

  it('resumes only the commits its claim wins; a failing claim is a failure of that commit', async () => {
    const snaps = [snapshotOf(1), snapshotOf(2), snapshotOf(3), snapshotOf(4)];
    const { store, committer, resumed } = setup(snaps, new Set());
    const claim = async (key: CommitSnapshot['intent']['key']) => {
      if (key.clientMessageId === id(3)) throw new Error('claim store down');
      return key.clientMessageId !== id(2);
    };
    const report = await new RecoveryRunner(store, committer, { graceMs: 0n, maxItems: 4, clock: new ManualClock(1n), claim }).runOnce();
    expect(resumed).toEqual([snaps[0], snaps[3]]);
    expect(report).toMatchObject({ examined: 3, completed: 2, failed: 1 });
    expect(report.failures.map((f) => f.key)).toEqual([snaps[2]!.intent.key]);
  });

  it('refuses a negative grace or a bad max', () => {
    const { store, committer } = setup([], new Set());
    const clock = new ManualClock(0n);
    expect(() => new RecoveryRunner(store, committer, { graceMs: -1n, maxItems: 1, clock })).toThrow(InvalidInputError);
    expect(() => new RecoveryRunner(store, committer, { graceMs: 0n, maxItems: 0, clock })).toThrow(InvalidInputError);
    expect(() => new RecoveryRunner(store, committer, { graceMs: 0n, maxItems: 1.5, clock })).toThrow(InvalidInputError);
  });
});
