import { DAY_MS, FrontierGapError, InvalidInputError, composeMailboxSeq, decodeMailboxEntry, epochStartSeq } from '@qim/store-core';
import type { DispatchRecord, Id128, MailboxStore, ShardEpoch } from '@qim/store-core';
import { StatementCounter } from '../session/statement-counter';
import { SimulatedCrashError } from './context/scylla-mailbox-faults';
import { INDEX_STAMP_BASE } from './page/dispatch-index';
import { FAST_BATCH_BYTES, FAST_BATCH_ENTRIES } from './retention/append-entries';
import { ScyllaMailboxStore } from './scylla-mailbox-store';
import type { ScyllaMailboxStoreOptions } from './scylla-mailbox-store';
import { DirectReads } from '../testing/direct-reads';
import { makePage, makeRecord, randomShard, rid, sortedIds } from '../testing/dispatch-driver';
import { GATE_CASE_TIMEOUT_MS, GATE_SETUP_TIMEOUT_MS, openMailboxGate } from '../testing/mailbox-gate';
import type { MailboxGate } from '../testing/mailbox-gate';
import { RequestTally } from '../testing/request-tally';

/** Scylla gate of `applyPage` (ADR-0022) on the real server: LWT counts, duplicates, crashes, zombies, lifetimes. */
jest.setTimeout(GATE_CASE_TIMEOUT_MS);

const EPOCH = 3;
const WEEK = 7n * DAY_MS;
const tally = new RequestTally();
let gate: MailboxGate;
let direct: DirectReads;

beforeAll(async () => {
  gate = await openMailboxGate('page', { requestTracker: tally });
  direct = new DirectReads(gate.session);
}, GATE_SETUP_TIMEOUT_MS);
afterAll(async () => gate?.drop(), GATE_SETUP_TIMEOUT_MS);

const newShard = (): ShardEpoch => ({ shard: randomShard(), epoch: EPOCH });
const seq = (o: bigint): bigint => composeMailboxSeq(EPOCH, o);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
function open(se: ShardEpoch, extra: Partial<ScyllaMailboxStoreOptions> = {}): ScyllaMailboxStore {
  return new ScyllaMailboxStore({ session: gate.session, shardEpoch: se, gc: { entryRetentionMs: WEEK, dispatchDedupeMs: WEEK }, ...extra });
}

/** Every seq a reader of `(t, u)` sees up to the store's frontier. */
async function visible(store: MailboxStore, t: Id128, u: Id128): Promise<bigint[]> {
  const f = (await store.frontier()).offset;
  const upTo = f === null ? epochStartSeq(EPOCH) : seq(f);
  const out: bigint[] = [];
  let after = epochStartSeq(EPOCH);
  for (;;) {
    const p = await store.rangeScan(t, u, after, upTo, 100);
    out.push(...p.entries.map((e) => e.mailboxSeq));
    after = p.next;
    if (!p.hasMore) return out;
  }
}

describe('LWTs per dispatch', () => {
  it(
    'a 1,000-recipient dispatch costs ≤ 1 LWT per recipient on their first entry of the day ' + 'and 0 once the day is registered (warm and cold store)',
    async () => {
      const se = newShard();
      const counter = new StatementCounter();
      const store = open(se, { counter });
      const t = rid();
      const users = sortedIds(1000);
      const now = BigInt(Date.now());
      const lwtNames = (): [string, number][] =>
        counter
          .snapshot()
          .filter((c) => c.lwt)
          .map((c) => [c.name, c.count]);

      counter.reset();
      tally.reset();
      expect(await store.applyPage(makePage(0n, 0n, [[0n, makeRecord(se.shard, t, users, now)]]))).toMatchObject({
        frontier: 0n,
        wrote: true,
        entriesWritten: 1000,
        entriesExpired: 0,
      });
      expect(lwtNames()).toEqual([['retention_meta.insert', 1000]]);
      expect(tally.lwts).toBe(1000);

      counter.reset();
      tally.reset();
      expect(await store.applyPage(makePage(1n, 1n, [[1n, makeRecord(se.shard, t, users, now)]]))).toMatchObject({ frontier: 1n, entriesWritten: 1000 });
      expect(lwtNames()).toEqual([]);
      expect(tally.lwts).toBe(0);
      expect(counter.count('retention_meta.')).toBe(0);
      // Entries in batches of FAST_BATCH_ENTRIES (one replica set on the test node); frontier read, index read, sight batch, frontier write.
      expect(counter.requests).toBe(1000 / FAST_BATCH_ENTRIES + 4);

      const cold = open(se, { counter });
      counter.reset();
      tally.reset();
      expect(await cold.applyPage(makePage(2n, 2n, [[2n, makeRecord(se.shard, t, users, now)]]))).toMatchObject({ frontier: 2n, entriesWritten: 1000 });
      expect(lwtNames()).toEqual([]);
      expect(tally.lwts).toBe(0);
      expect(counter.count('retention_meta.select')).toBe(1000);
      expect(tally.errors).toEqual([]);

      for (const u of users.slice(0, 25)) {
        expect(await visible(cold, t, u)).toEqual([seq(0n), seq(1n), seq(2n)]);
        const [[epoch, , maxSeq, stamp]] = (await direct.proofRows(t, u)) as [[number, bigint, bigint, bigint]];
        expect([epoch, maxSeq, stamp]).toEqual([EPOCH, seq(2n), seq(2n)]);
      }
    },
  );
});

describe('duplicates and conflicts', () => {
  it(
    'one entry per recipient at the lowest offset of a dispatch id, in the page and across pages; ' + 'other content is a conflict and writes nothing',
    async () => {
      const se = newShard();
      const store = open(se);
      const t = rid();
      const now = BigInt(Date.now());
      const x = makeRecord(se.shard, t, sortedIds(3), now);
      const y = makeRecord(se.shard, t, sortedIds(2), now);
      const xOther: DispatchRecord = { ...x, recipients: sortedIds(2) };
      const yOther: DispatchRecord = { ...y, recipients: sortedIds(2) };
      const first = await store.applyPage(
        makePage(10n, 14n, [
          [10n, x],
          [12n, y],
          [13n, x],
          [14n, xOther],
        ]),
      );
      expect(first.outcomes.map((o) => [o.offset, o.outcome, o.canonicalOffset])).toEqual([
        [10n, 'applied', 10n],
        [12n, 'applied', 12n],
        [13n, 'duplicate', 10n],
        [14n, 'conflict', 10n],
      ]);
      expect(first).toMatchObject({ frontier: 14n, wrote: true, entriesWritten: 5 });
      const second = await store.applyPage(
        makePage(15n, 17n, [
          [15n, x],
          [16n, yOther],
        ]),
      );
      expect(second.outcomes.map((o) => [o.offset, o.outcome, o.canonicalOffset])).toEqual([
        [15n, 'duplicate', 10n],
        [16n, 'conflict', 12n],
      ]);
      expect(second).toMatchObject({ frontier: 17n, entriesWritten: 0 });
      for (const u of x.recipients) expect(await visible(store, t, u)).toEqual([seq(10n)]);
      for (const u of y.recipients) expect(await visible(store, t, u)).toEqual([seq(12n)]);
      for (const u of [...xOther.recipients, ...yOther.recipients]) expect(await direct.entryRows(t, u)).toEqual([]);
      expect((await direct.indexRows(se, x.dispatchId)).map((r) => [r['canonical_offset'], r['stamp']])).toEqual([[10n, INDEX_STAMP_BASE - 10n]]);
    },
  );
});

describe('index read beside the frontier, entries in batches', () => {
  const indexReads = (c: StatementCounter): number => c.count('dispatch_index.select');

  it('a store reads the index beside the frontier once it knows a stored frontier, and again when another store moved the frontier past it', async () => {
    const se = newShard();
    const counter = new StatementCounter();
    const store = open(se, { counter });
    const other = open(se);
    const t = rid();
    const now = BigInt(Date.now());
    const x = makeRecord(se.shard, t, sortedIds(2), now);
    await store.applyPage(makePage(0n, 0n, [[0n, makeRecord(se.shard, t, sortedIds(1), now)]]));
    counter.reset();
    expect((await store.applyPage(makePage(1n, 1n, [[1n, makeRecord(se.shard, t, sortedIds(1), now)]]))).outcomes.map((o) => o.outcome)).toEqual(['applied']);
    expect(indexReads(counter)).toBe(1);
    // Another store applies x at 2: its sight is at or below a frontier this store has not seen.
    await other.applyPage(makePage(2n, 2n, [[2n, x]]));
    counter.reset();
    const dup = await store.applyPage(makePage(2n, 3n, [[3n, x]]));
    expect(dup.outcomes.map((o) => [o.offset, o.outcome, o.canonicalOffset])).toEqual([[3n, 'duplicate', 2n]]);
    expect(indexReads(counter)).toBe(2);
    expect(dup.entriesWritten).toBe(0);
    for (const u of x.recipients) expect(await visible(store, t, u)).toEqual([seq(2n)]);
  });

  it('registered entries go in batches of at most FAST_BATCH_ENTRIES entries and FAST_BATCH_BYTES entry bytes', async () => {
    const se = newShard();
    const counter = new StatementCounter();
    const store = open(se, { counter });
    const t = rid();
    const now = BigInt(Date.now());
    const small = sortedIds(2 * FAST_BATCH_ENTRIES + 1);
    const big = sortedIds(3);
    const bigRecord = (): DispatchRecord => ({
      ...makeRecord(se.shard, t, big, now),
      events: [{ ordinal: 0, eventId: rid(), payload: new Uint8Array(FAST_BATCH_BYTES / 2 + 1) }],
    });
    await store.applyPage(
      makePage(0n, 1n, [
        [0n, makeRecord(se.shard, t, small, now)],
        [1n, bigRecord()],
      ]),
    );
    counter.reset();
    expect(await store.applyPage(makePage(2n, 2n, [[2n, makeRecord(se.shard, t, small, now)]]))).toMatchObject({ entriesWritten: small.length });
    expect(counter.count('entry.insert')).toBe(small.length);
    expect(counter.requests - 4).toBe(3);
    counter.reset();
    expect(await store.applyPage(makePage(3n, 3n, [[3n, bigRecord()]]))).toMatchObject({ entriesWritten: big.length });
    expect(counter.requests - 4).toBe(big.length);
    for (const u of [...small, ...big]) expect((await direct.entryRows(t, u)).length).toBe(2);
  });
});

describe('refusals write nothing', () => {
  it('a gap, a page behind the frontier, a foreign-shard record and a repeated ordinal cost only the frontier read', async () => {
    const se = newShard();
    const counter = new StatementCounter();
    const store = open(se, { counter });
    const t = rid();
    const now = BigInt(Date.now());
    await store.applyPage(makePage(0n, 4n, [[2n, makeRecord(se.shard, t, sortedIds(2), now)]]));
    const bad = makeRecord(se.shard, t, sortedIds(2), now);
    const cases: [ReturnType<typeof makePage>, unknown][] = [
      [makePage(6n, 8n, [[7n, makeRecord(se.shard, t, sortedIds(1), now)]]), FrontierGapError],
      [makePage(5n, 6n, [[5n, makeRecord((se.shard + 1) % 65_536, t, sortedIds(1), now)]]), InvalidInputError],
      [makePage(5n, 6n, [[5n, { ...bad, events: [bad.events[0]!, { ...bad.events[0]!, eventId: rid() }] }]]), InvalidInputError],
    ];
    for (const [page, error] of cases) {
      counter.reset();
      await expect(store.applyPage(page)).rejects.toBeInstanceOf(error as new () => Error);
      expect(counter.snapshot().map((c) => c.name)).toEqual(['frontier.select']);
    }
    counter.reset();
    expect(await store.applyPage(makePage(1n, 4n, [[2n, makeRecord(se.shard, t, sortedIds(2), now)]]))).toEqual({
      frontier: 4n,
      wrote: false,
      outcomes: [],
      entriesWritten: 0,
      entriesExpired: 0,
    });
    expect(counter.snapshot().map((c) => c.name)).toEqual(['frontier.select']);
    expect(await direct.frontierRow(se)).toEqual({ frontier: 4n, stamp: 5n });
  });
});

describe('crash points', () => {
  it('a crash after some entries or before the frontier leaves the frontier where it was; re-applying converges to the same rows', async () => {
    const se = newShard();
    const t = rid();
    const now = BigInt(Date.now());
    const rec = makeRecord(se.shard, t, sortedIds(6), now);
    const page = makePage(0n, 3n, [[1n, rec]]);
    await expect(open(se, { faults: { crashAfterEntries: 2 } }).applyPage(page)).rejects.toBeInstanceOf(SimulatedCrashError);
    expect(await direct.frontierRow(se)).toBeNull();
    const after2 = (await Promise.all(rec.recipients.map((u) => direct.entryRows(t, u)))).filter((r) => r.length > 0).length;
    expect(after2).toBeGreaterThanOrEqual(2);
    await expect(open(se, { faults: { crashBeforeFrontier: true } }).applyPage(page)).rejects.toBeInstanceOf(SimulatedCrashError);
    expect(await direct.frontierRow(se)).toBeNull();
    const bytes = await Promise.all(rec.recipients.map(async (u) => (await direct.entryRows(t, u)).map((r) => (r['entry'] as Buffer).toString('hex'))));
    expect(bytes.every((b) => b.length === 1)).toBe(true);
    const healthy = open(se);
    expect(await healthy.frontier()).toEqual({ offset: null });
    expect(await healthy.applyPage(page)).toMatchObject({ frontier: 3n, entriesWritten: 6 });
    for (const [i, u] of rec.recipients.entries()) {
      expect((await direct.entryRows(t, u)).map((r) => (r['entry'] as Buffer).toString('hex'))).toEqual(bytes[i]);
      expect(await visible(healthy, t, u)).toEqual([seq(1n)]);
    }
  });
});

describe('zombie workers', () => {
  it(
    'three stores applying the same pages concurrently (one frontier write held back until the end) ' +
      'converge to the same rows; the frontier and its WRITETIME never go back',
    async () => {
      const se = newShard();
      const t = rid();
      const now = BigInt(Date.now());
      const pool = sortedIds(12);
      const records = new Map<bigint, DispatchRecord>();
      for (let o = 0n; o < 30n; o++)
        records.set(
          o,
          makeRecord(
            se.shard,
            t,
            [pool[Number(o) % 12]!, pool[(Number(o) * 5 + 1) % 12]!, pool[(Number(o) * 7 + 3) % 12]!].filter((u, i, a) => a.indexOf(u) === i),
            now,
          ),
        );
      records.set(17n, records.get(3n)!);
      records.set(22n, records.get(21n)!);
      records.delete(9n);
      const pages = [0n, 5n, 10n, 15n, 20n, 25n].map((from) =>
        makePage(
          from,
          from + 4n,
          [...records].filter(([o]) => o >= from && o <= from + 4n),
        ),
      );

      const seen: { frontier: bigint; stamp: bigint }[] = [];
      let polling = true;
      const poller = (async () => {
        while (polling) {
          const row = await direct.frontierRow(se);
          if (row) seen.push(row);
          await sleep(5);
        }
      })();
      let releaseStale!: () => void;
      const stale = new Promise<void>((r) => (releaseStale = r));
      const jitter = async (): Promise<void> => sleep(Math.floor(Math.random() * 40));
      const chain = async (store: MailboxStore): Promise<void> => {
        for (const p of pages) await store.applyPage(p);
      };
      let heldReached!: () => void;
      const reached = new Promise<void>((r) => (heldReached = r));
      const hold = async (): Promise<void> => {
        heldReached();
        await stale;
      };
      const held = open(se, { faults: { beforeFrontierWrite: hold } }).applyPage(pages[0]!);
      await reached;
      await Promise.all([chain(open(se, { faults: { beforeFrontierWrite: jitter } })), chain(open(se, { faults: { beforeFrontierWrite: jitter } }))]);
      releaseStale();
      expect(await held).toMatchObject({ wrote: true, frontier: 4n });
      await sleep(50);
      polling = false;
      await poller;

      expect(await direct.frontierRow(se)).toEqual({ frontier: 29n, stamp: 30n });
      expect(seen.length).toBeGreaterThan(3);
      for (const [i, row] of seen.entries()) {
        expect(row.stamp).toBe(row.frontier + 1n);
        if (i > 0) expect(row.frontier).toBeGreaterThanOrEqual(seen[i - 1]!.frontier);
      }
      const reader = open(se);
      for (const u of pool) {
        const expected = [...records].filter(([o, r]) => r.recipients.includes(u) && !(o === 17n || o === 22n)).map(([o]) => seq(o));
        expect(await visible(reader, t, u)).toEqual(expected);
        const rows = await direct.entryRows(t, u);
        expect(rows.map((r) => r['mailbox_seq'])).toEqual(expected);
        for (const r of rows) {
          const e = decodeMailboxEntry(r['entry'] as Buffer);
          const source = records.get(e.mailboxSeq - seq(0n))!;
          expect(e.events.map((ev) => ev.eventId)).toEqual(source.events.map((ev) => ev.eventId));
        }
        const proofs = await direct.proofRows(t, u);
        expect(proofs.map(([, , max, stamp]) => [max, stamp])).toEqual([[expected[expected.length - 1], expected[expected.length - 1]]]);
      }
      expect((await direct.indexRows(se, records.get(3n)!.dispatchId)).map((r) => r['canonical_offset'])).toEqual([3n]);
      expect((await direct.indexRows(se, records.get(21n)!.dispatchId)).map((r) => r['canonical_offset'])).toEqual([21n]);
    },
  );
});

describe('lifetimes: no ghost rows', () => {
  it(
    'dispatch-index rows end at createdAt + dispatchDedupeMs (a later rewrite ends at the same second) ' +
      'and then vanish entirely; a sight after that is applied anew',
    async () => {
      const se = newShard();
      const store = new ScyllaMailboxStore({ session: gate.session, shardEpoch: se, gc: { entryRetentionMs: WEEK, dispatchDedupeMs: 4_000n } });
      const t = rid();
      const createdAt = BigInt(Date.now());
      const expiry = createdAt + 4_000n;
      const recs = Array.from({ length: 20 }, () => makeRecord(se.shard, t, sortedIds(1), createdAt));
      const ids = recs.map((r) => r.dispatchId);
      await store.applyPage(
        makePage(
          0n,
          19n,
          recs.map((r, i) => [BigInt(i), r]),
        ),
      );
      const endOf = async (): Promise<number[]> => {
        const ends: number[] = [];
        for (const id of ids.slice(0, 5)) {
          const readAt = Date.now();
          const [row] = await direct.indexRows(se, id);
          ends.push(Math.floor(readAt / 1000) + (row!['ttl'] as number));
        }
        return ends;
      };
      const firstEnds = await endOf();
      for (const end of firstEnds) expect(Math.abs(end - Number((expiry + 999n) / 1000n))).toBeLessThanOrEqual(1);
      await sleep(1_200);
      const again = await store.applyPage(
        makePage(
          20n,
          24n,
          recs.slice(0, 5).map((r, i) => [BigInt(20 + i), r]),
        ),
      );
      expect(again.outcomes.map((o) => o.outcome)).toEqual(['duplicate', 'duplicate', 'duplicate', 'duplicate', 'duplicate']);
      const secondEnds = await endOf();
      for (const [i, end] of secondEnds.entries()) expect(Math.abs(end - firstEnds[i]!)).toBeLessThanOrEqual(1);
      expect(await direct.indexCount(se, ids)).toBe(20);

      await sleep(Number(expiry - BigInt(Date.now())) + 1_500);
      expect(await direct.indexCount(se, ids)).toBe(0);
      for (const id of ids) expect(await direct.indexRows(se, id)).toEqual([]);
      const late = await store.applyPage(makePage(25n, 25n, [[25n, recs[0]!]]));
      expect(late.outcomes).toEqual([{ offset: 25n, dispatchId: ids[0], outcome: 'applied', canonicalOffset: 25n }]);
      expect(await direct.indexCount(se, [ids[0]!])).toBe(0);
    },
  );
});
