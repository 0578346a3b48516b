import type { DispatchRecord, Id128, MailboxStore } from '@qim/store-core';
import type { MailboxFaults } from '../harness';
import { randomId } from '../support/ids';
import { seqAt } from './mailbox-fixtures';
import type { MailboxContext } from './mailbox-fixtures';
import { actualInboxes, applied, dispatchTo, dispatchToNew, duplicate, entriesOf, expectedInboxes, frontierOf, pageOf } from './page-fixtures';

type Records = readonly (readonly [bigint, DispatchRecord])[];

interface CrashSetup {
  readonly healthy: MailboxStore;
  /** The first page, applied by the healthy store: frontier 1. */
  readonly before: Records;
  /** The page the faulty store crashes in: `[2, 6]`, 5 entries (3 + 2), one duplicate. */
  readonly crashed: Records;
  readonly users: readonly Id128[];
  /** The dispatches of the crashed page: `d` at 2 and 5 (a duplicate), `e` at 4. */
  readonly d: DispatchRecord;
  readonly e: DispatchRecord;
}

/** A store at frontier 1 and a page `[2, 6]` whose recipients overlap the first page's. */
async function setup(c: MailboxContext, epoch: number): Promise<CrashSetup> {
  const healthy = await c.open({}, epoch);
  const shared = randomId();
  const first = dispatchTo(c, [shared, randomId()]);
  const before = [[0n, first]] as const;
  await healthy.applyPage(pageOf(0n, 1n, before));
  const d = dispatchTo(c, [shared, randomId(), randomId()]);
  const e = dispatchToNew(c, 2);
  const crashed = [
    [2n, d],
    [4n, e],
    [5n, d],
  ] as const;
  const users = [...new Set([...first.recipients, ...d.recipients, ...e.recipients])];
  return { healthy, before, crashed, users, d, e };
}

/** Entries of `users` above the frontier `f` (what a crash left behind, invisible to frontier readers). */
async function entriesAbove(c: MailboxContext, store: MailboxStore, users: readonly Id128[], f: bigint): Promise<number> {
  let n = 0;
  for (const u of users) n += (await entriesOf(c, store, u)).filter((x) => x.mailboxSeq > seqAt(store, f)).length;
  return n;
}

/** Crash between a page's entries and its frontier, then re-apply: exactly one entry per recipient and message. */
export function pageCrashCases(ctx: () => MailboxContext): void {
  describe('applyPage crashes', () => {
    // [what, faults, fewest and most entries the crash may leave above the frontier (others may be in flight)]
    const cases: [string, MailboxFaults, number, number][] = [
      ['right after the dispatch index (crashAfterEntries = 0)', { crashAfterEntries: 0 }, 0, 0],
      ['after 2 of 5 entries (crashAfterEntries = 2)', { crashAfterEntries: 2 }, 2, 5],
      ['after every entry, before the frontier (crashBeforeFrontier)', { crashBeforeFrontier: true }, 5, 5],
    ];
    it.each(cases)('a crash %s: frontier unchanged, nothing visible above it; re-applying converges', async (_what, faults, fewest, most) => {
      const c = ctx();
      const { healthy, before, crashed, users, d, e } = await setup(c, c.shardEpoch.epoch);
      const visible = await actualInboxes(c, healthy, before);
      const faulty = await c.open({}, c.shardEpoch.epoch, faults);
      const page = pageOf(2n, 6n, crashed);
      await expect(faulty.applyPage(page)).rejects.toBeInstanceOf(Error);
      expect(await frontierOf(healthy)).toBe(1n);
      const upToF = seqAt(healthy, 1n);
      expect(await actualInboxes(c, healthy, [...before, ...crashed], upToF)).toEqual(visible);
      const left = await entriesAbove(c, healthy, users, 1n);
      expect(left).toBeGreaterThanOrEqual(fewest);
      expect(left).toBeLessThanOrEqual(most);

      expect(await healthy.applyPage(page)).toEqual({
        frontier: 6n,
        wrote: true,
        outcomes: [applied(2n, d), applied(4n, e), duplicate(5n, d, 2n)],
        entriesWritten: 5,
        entriesExpired: 0,
      });
      expect(await actualInboxes(c, healthy, [...before, ...crashed])).toEqual(expectedInboxes([...before, ...crashed]));
      expect(await frontierOf(faulty)).toBe(6n);
    });

    it('a crash before the frontier leaves entries that a re-apply rewrites with the same bytes', async () => {
      const c = ctx();
      const { healthy, before, crashed, users } = await setup(c, c.shardEpoch.epoch);
      const faulty = await c.open({}, c.shardEpoch.epoch, { crashBeforeFrontier: true });
      await expect(faulty.applyPage(pageOf(2n, 6n, crashed))).rejects.toBeInstanceOf(Error);
      const left = await Promise.all(users.map((u) => entriesOf(c, healthy, u)));
      await healthy.applyPage(pageOf(2n, 6n, crashed));
      expect(await Promise.all(users.map((u) => entriesOf(c, healthy, u)))).toEqual(left);
      expect(await actualInboxes(c, healthy, [...before, ...crashed])).toEqual(expectedInboxes([...before, ...crashed]));
    });
  });
}
