import { CursorExpiredError, DAY_MS, composeMailboxSeq, dayOf, entryExpiry, epochStartSeq, id128ToBytes } from '@qim/store-core';
import type { Id128 } from '@qim/store-core';
import { ScyllaMailboxStore } from './scylla-mailbox-store';
import { DirectReads } from '../testing/direct-reads';
import { randomShard, entryInput, rid } from '../testing/dispatch-driver';
import { GATE_CASE_TIMEOUT_MS, GATE_SETUP_TIMEOUT_MS, openMailboxGate } from '../testing/mailbox-gate';
import type { MailboxGate } from '../testing/mailbox-gate';

/**
 * Issue 10 item 10 / issue 15 (6) on a real Cassandra: bucket proofs do not live forever. A proof
 * keeps no TTL while a ledger item refers to it (however long the user stays away); once its day is
 * consumed it is released (rewritten with its own values and stamp USING TTL) and disappears after
 * the released-proof lifetime (2 s here, one day in production); a proof written for an already
 * consumed day carries that TTL from its first write. Reads stay exact throughout.
 */
jest.setTimeout(GATE_CASE_TIMEOUT_MS);

const EPOCH = 13;
const RELEASED_TTL_S = 2;
let gate: MailboxGate;
let direct: DirectReads;

beforeAll(async () => {
  gate = await openMailboxGate('prooflife');
  direct = new DirectReads(gate.session);
}, GATE_SETUP_TIMEOUT_MS);
afterAll(async () => gate?.drop(), GATE_SETUP_TIMEOUT_MS);

const seq = (o: bigint): bigint => composeMailboxSeq(EPOCH, o);
const START = epochStartSeq(EPOCH);
const TOP = composeMailboxSeq(EPOCH, (1n << 47n) - 2n);
const sleepUntil = async (ms: bigint): Promise<void> => {
  const wait = Number(ms - BigInt(Date.now()));
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
};

/** `[epoch, day, max_seq, ttl|null]` of every proof row of the user. */
async function epochProofs(tenantId: Id128, userId: Id128): Promise<[number, number, bigint, number | null][]> {
  const rs = await direct.exec('SELECT epoch, day, max_seq, TTL(max_seq) AS ttl FROM {ks}.mailbox_retention_bucket_v3 WHERE tenant_id = ? AND user_id = ?', [
    id128ToBytes(tenantId),
    id128ToBytes(userId),
  ]);
  return rs.rows.map((r) => [r['epoch'] as number, Number(r['day']), BigInt(r['max_seq'].toString()), (r['ttl'] as number | null) ?? null]);
}

/** `[day, max_seq, ttl|null]` of every proof row of the user. */
async function proofs(tenantId: Id128, userId: Id128): Promise<[number, bigint, number | null][]> {
  const rs = await direct.exec('SELECT day, max_seq, TTL(max_seq) AS ttl FROM {ks}.mailbox_retention_bucket_v3 WHERE tenant_id = ? AND user_id = ?', [
    id128ToBytes(tenantId),
    id128ToBytes(userId),
  ]);
  return rs.rows.map((r) => [Number(r['day']), BigInt(r['max_seq'].toString()), (r['ttl'] as number | null) ?? null]);
}

function setup(inMs: bigint) {
  const now = BigInt(Date.now());
  const todayStart = BigInt(dayOf(now)) * DAY_MS;
  const retention = now + inMs - todayStart;
  const yesterday = todayStart - DAY_MS + 1_000n;
  const store = new ScyllaMailboxStore({
    session: gate.session,
    shardEpoch: { shard: randomShard(), epoch: EPOCH },
    gc: { entryRetentionMs: retention, dispatchDedupeMs: DAY_MS },
    releasedProofTtlSeconds: RELEASED_TTL_S,
  });
  return { store, yesterday, today: now, expiry: entryExpiry(yesterday, retention), dayY: dayOf(yesterday), dayT: dayOf(now) };
}

describe('bucket proof lifetime (released when consumed)', () => {
  it('a proof referred to by a ledger item has no TTL, even long after its day expired; an inspection releases it and it disappears', async () => {
    const { store, yesterday, today, expiry, dayY, dayT } = setup(3_000n);
    const [t, u] = [rid(), rid()];
    await store.appendBatch([entryInput(t, u, seq(5n), yesterday), entryInput(t, u, seq(9n), today)]);
    await store.appendBatch([entryInput(t, u, seq(7n), yesterday)]); // a day this close to its expiry takes the slow path
    expect((await proofs(t, u)).sort()).toEqual(
      [
        [dayY, seq(7n), null],
        [dayT, seq(9n), null],
      ].sort(),
    );

    await sleepUntil(expiry + 1_500n);
    // nobody consumed the expired day yet: its proof still has no TTL (an item refers to it)
    expect((await proofs(t, u)).find(([d]) => d === dayY)).toEqual([dayY, seq(7n), null]);
    // the inspection consumes it at the proof's max seq and releases the proof
    await expect(store.rangeScan(t, u, START, TOP, 100)).rejects.toMatchObject({ boundary: seq(7n) });
    const released = (await proofs(t, u)).find(([d]) => d === dayY)!;
    expect(released[1]).toBe(seq(7n));
    expect(released[2]).not.toBeNull();
    expect(released[2]!).toBeLessThanOrEqual(RELEASED_TTL_S);

    await sleepUntil(BigInt(Date.now()) + BigInt(RELEASED_TTL_S) * 1_000n + 1_200n);
    expect(await proofs(t, u)).toEqual([[dayT, seq(9n), null]]);
    // reads stay exact without it: the gap lives in the meta
    const err = await store.rangeScan(t, u, seq(6n), TOP, 100).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CursorExpiredError);
    expect((err as CursorExpiredError).boundary).toBe(seq(7n));
    expect((await store.rangeScan(t, u, seq(7n), TOP, 100)).entries.map((e) => e.mailboxSeq)).toEqual([seq(9n)]);
  });

  it('an append that consumes an expired day releases its proof; a late entry of a consumed day writes a proof with a TTL from its first write', async () => {
    const { store, yesterday, today, expiry, dayY, dayT } = setup(2_000n);
    const [t, u] = [rid(), rid()];
    await store.appendBatch([entryInput(t, u, seq(3n), yesterday), entryInput(t, u, seq(8n), yesterday)]);
    await sleepUntil(expiry + 1_200n);
    // first entry of today: the slow path consumes yesterday (gap = 8) and releases its proof
    expect(await store.appendBatch([entryInput(t, u, seq(10n), today)])).toEqual({ written: 1, expired: 0 });
    const after = await proofs(t, u);
    expect(after.find(([d]) => d === dayY)![2]).not.toBeNull();
    expect(after.find(([d]) => d === dayT)).toEqual([dayT, seq(10n), null]);

    await sleepUntil(BigInt(Date.now()) + BigInt(RELEASED_TTL_S) * 1_000n + 1_200n);
    expect((await proofs(t, u)).map(([d]) => d)).toEqual([dayT]);
    // a late entry of the consumed day: expired replay, its proof lives only the released TTL
    expect(await store.appendBatch([entryInput(t, u, seq(12n), yesterday)])).toEqual({ written: 0, expired: 1 });
    const late = (await proofs(t, u)).find(([d]) => d === dayY);
    expect(late?.[1]).toBe(seq(12n));
    expect(late?.[2]).not.toBeNull();
    const err = await store.rangeScan(t, u, seq(11n), TOP, 100).catch((e: unknown) => e);
    expect((err as CursorExpiredError).boundary).toBe(seq(12n));
    await sleepUntil(BigInt(Date.now()) + BigInt(RELEASED_TTL_S) * 1_000n + 1_200n);
    expect((await proofs(t, u)).map(([d]) => d)).toEqual([dayT]);
    expect((await store.rangeScan(t, u, seq(12n), TOP, 100)).entries).toEqual([]);
    expect(await store.rangeScan(t, u, seq(9n), TOP, 100).catch((e: unknown) => e)).toBeInstanceOf(CursorExpiredError);
  });

  describe('a day written in two epochs (issue 27)', () => {
    /**
     * The day registered in EPOCH, then raised in EPOCH + 1 by a store whose clock lags three hours
     * (so its fast path raises only its own epoch's row, as a day far from expiry would), then expired.
     */
    async function dayInTwoEpochs(inMs: bigint) {
      const { store: older, yesterday, today, expiry, dayY, dayT } = setup(inMs);
      const gc = { entryRetentionMs: expiry - (BigInt(dayY) + 1n) * DAY_MS, dispatchDedupeMs: DAY_MS };
      const shardEpoch = { shard: older.shardEpoch.shard, epoch: EPOCH + 1 };
      const newer = new ScyllaMailboxStore({
        session: gate.session,
        shardEpoch,
        gc,
        releasedProofTtlSeconds: RELEASED_TTL_S,
        clock: { nowMs: () => BigInt(Date.now()) - 3n * 3_600_000n },
      });
      const reader = new ScyllaMailboxStore({ session: gate.session, shardEpoch, gc, releasedProofTtlSeconds: RELEASED_TTL_S });
      const [t, u] = [rid(), rid()];
      await older.appendBatch([entryInput(t, u, seq(4n), yesterday)]);
      await newer.appendBatch([entryInput(t, u, composeMailboxSeq(EPOCH + 1, 2n), yesterday)]);
      expect((await epochProofs(t, u)).sort()).toEqual([
        [EPOCH, dayY, seq(4n), null],
        [EPOCH + 1, dayY, composeMailboxSeq(EPOCH + 1, 2n), null],
      ]);
      await sleepUntil(expiry + 1_200n);
      return { reader, t, u, today, dayY, dayT };
    }

    function expectReleasedEveryEpoch(rows: [number, number, bigint, number | null][], dayY: number): void {
      const ofDay = rows.filter(([, d]) => d === dayY);
      expect(ofDay.map(([e]) => e).sort()).toEqual([EPOCH, EPOCH + 1]);
      for (const [, , , ttl] of ofDay) {
        expect(ttl).not.toBeNull();
        expect(ttl!).toBeLessThanOrEqual(RELEASED_TTL_S);
      }
    }

    it('an inspection releases the proof row of every epoch of the consumed day', async () => {
      const { reader, t, u, dayY } = await dayInTwoEpochs(2_000n);
      const top = composeMailboxSeq(EPOCH + 1, (1n << 47n) - 2n);
      await expect(reader.rangeScan(t, u, composeMailboxSeq(EPOCH + 1, 1n), top, 100)).rejects.toMatchObject({ boundary: composeMailboxSeq(EPOCH + 1, 2n) });
      expectReleasedEveryEpoch(await epochProofs(t, u), dayY);
    });

    it('an append that consumes the day releases the proof row of every epoch', async () => {
      const { reader, t, u, today, dayY, dayT } = await dayInTwoEpochs(2_000n);
      expect(await reader.appendBatch([entryInput(t, u, composeMailboxSeq(EPOCH + 1, 3n), today)])).toEqual({ written: 1, expired: 0 });
      const rows = await epochProofs(t, u);
      expectReleasedEveryEpoch(rows, dayY);
      expect(rows.find(([, d]) => d === dayT)).toEqual([EPOCH + 1, dayT, composeMailboxSeq(EPOCH + 1, 3n), null]);
    });
  });
});
