import type { DispatchRecord, MailboxStore, PageReport } from '@qim/store-core';
import { randomId } from '../support/ids';
import type { MailboxContext } from './mailbox-fixtures';
import { actualInboxes, applied, dispatchTo, dispatchToNew, duplicate, expectedInboxes, frontierOf, pageOf } from './page-fixtures';

type Records = readonly (readonly [bigint, DispatchRecord])[];

/** Recipients of the big dispatch at offset 1: a zombie re-applying it is still busy when the live worker has moved on. */
const BIG_FANOUT = 40;

/** Ten offsets 0…9 of one partition: six dispatches (shared recipients, one big), one seen twice, offsets 5 and 9 dead-lettered. */
function partition(c: MailboxContext): Records {
  const shared = randomId();
  const d1 = dispatchTo(c, [shared, randomId()]);
  return [
    [0n, dispatchTo(c, [shared])],
    [1n, dispatchToNew(c, BIG_FANOUT)],
    [2n, d1],
    [3n, dispatchToNew(c, 2)],
    [4n, dispatchTo(c, [shared, randomId()])],
    [6n, d1],
    [7n, dispatchTo(c, [shared])],
    [8n, dispatchToNew(c, 1)],
  ];
}

const within = (records: Records, from: bigint, to: bigint): Records => records.filter(([o]) => o >= from && o <= to);

/** Runs `work` while reading the frontier over and over; returns every value seen, the final one last. */
async function frontierTrail(store: MailboxStore, work: Promise<unknown>): Promise<(bigint | null)[]> {
  const seen: (bigint | null)[] = [];
  let done = false;
  const finished = work.finally(() => {
    done = true;
  });
  while (!done) {
    seen.push(await frontierOf(store));
    await new Promise((resolve) => setImmediate(resolve));
  }
  await finished;
  seen.push(await frontierOf(store));
  return seen;
}

/** Pairs of consecutive frontier readings where the frontier went down. */
function backwardSteps(trail: readonly (bigint | null)[]): [bigint | null, bigint | null][] {
  const rank = (v: bigint | null): bigint => (v === null ? -1n : v);
  return trail.flatMap((v, i) => (i > 0 && rank(v) < rank(trail[i - 1]!) ? [[trail[i - 1]!, v] as [bigint | null, bigint | null]] : []));
}

/** Zombie workers (two store instances on one shard and epoch) and concurrent first sights converge; the frontier never moves back. */
export function pageZombieCases(ctx: () => MailboxContext): void {
  describe('applyPage with zombie workers', () => {
    it('a late zombie re-applying an older page writes nothing and never moves the frontier back', async () => {
      const c = ctx();
      const [a, b] = [await c.open(), await c.open()];
      const records = partition(c);
      expect(await a.applyPage(pageOf(0n, 9n, records))).toMatchObject({ frontier: 9n, wrote: true });
      const before = await actualInboxes(c, a, records);
      expect(before).toEqual(expectedInboxes(records));
      expect(await b.applyPage(pageOf(0n, 4n, within(records, 0n, 4n)))).toEqual({
        frontier: 9n,
        wrote: false,
        outcomes: [],
        entriesWritten: 0,
        entriesExpired: 0,
      });
      expect(await frontierOf(a)).toBe(9n);
      expect(await frontierOf(b)).toBe(9n);
      expect(await actualInboxes(c, b, records)).toEqual(before);
    });

    it('a zombie re-applying an older page while the live worker moves on never moves the frontier back; both converge', async () => {
      const c = ctx();
      for (const [round, zombieFirst] of [false, true].entries()) {
        const epoch = c.shardEpoch.epoch + round;
        const [live, zombie] = [await c.open({}, epoch), await c.open({}, epoch)];
        const records = partition(c);
        await live.applyPage(pageOf(0n, 2n, within(records, 0n, 2n)));
        const replay = () => zombie.applyPage(pageOf(0n, 4n, within(records, 0n, 4n)));
        const onwards = async (): Promise<void> => {
          await live.applyPage(pageOf(3n, 4n, within(records, 3n, 4n)));
          await live.applyPage(pageOf(5n, 9n, within(records, 5n, 9n)));
        };
        const work = zombieFirst ? Promise.all([replay(), onwards()]) : Promise.all([onwards(), replay()]);
        const trail = await frontierTrail(live, work);
        expect(backwardSteps(trail)).toEqual([]);
        expect(trail[trail.length - 1]).toBe(9n);
        expect(await actualInboxes(c, live, records)).toEqual(expectedInboxes(records));
        expect(await zombie.applyPage(pageOf(0n, 9n, records))).toMatchObject({ frontier: 9n, wrote: false });
      }
    });

    it('concurrent first sights of one dispatch from two stores → one entry per recipient at the lowest offset', async () => {
      const c = ctx();
      for (const [round, secondFirst] of [false, true].entries()) {
        const epoch = c.shardEpoch.epoch + round;
        const [a, b] = [await c.open({}, epoch), await c.open({}, epoch)];
        const d = dispatchToNew(c, 3);
        const x = dispatchTo(c, [d.recipients[0]!]);
        const short = [
          [1n, d],
          [2n, x],
        ] as const;
        const long = [...short, [4n, d]] as const;
        const runA = () => a.applyPage(pageOf(0n, 3n, short));
        const runB = () => b.applyPage(pageOf(0n, 5n, long));
        const [ra, rb] = secondFirst ? (await Promise.all([runB(), runA()])).reverse() : await Promise.all([runA(), runB()]);
        const appliedA: PageReport = { frontier: 3n, wrote: true, outcomes: [applied(1n, d), applied(2n, x)], entriesWritten: 4, entriesExpired: 0 };
        const behindA: PageReport = { frontier: 5n, wrote: false, outcomes: [], entriesWritten: 0, entriesExpired: 0 };
        expect([appliedA, { ...appliedA, frontier: 5n }, behindA]).toContainEqual(ra);
        expect(rb).toEqual({
          frontier: 5n,
          wrote: true,
          outcomes: [applied(1n, d), applied(2n, x), duplicate(4n, d, 1n)],
          entriesWritten: 4,
          entriesExpired: 0,
        });
        expect(await actualInboxes(c, a, long)).toEqual(expectedInboxes(long));
        expect(await frontierOf(b)).toBe(5n);
      }
    });
  });
}
