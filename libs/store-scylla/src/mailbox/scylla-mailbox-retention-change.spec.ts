import { CursorExpiredError, DAY_MS, LEARNT_LEDGER_TRUST_MS, composeMailboxSeq, dayOf, entryExpiry } from '@qim/store-core';
import { ManualClock } from '@qim/store-core/testing';
import { ScyllaMailboxStore } from './scylla-mailbox-store';
import { randomShard, entryInput, rid } from '../testing/dispatch-driver';
import { GATE_CASE_TIMEOUT_MS, GATE_SETUP_TIMEOUT_MS, openMailboxGate } from '../testing/mailbox-gate';
import type { MailboxGate } from '../testing/mailbox-gate';

/**
 * Issue 27 (4) on a real Cassandra: a retention decrease during a rolling restart. The store with
 * the longer retention learnt a day's later expiry (its registered days); the shorter one lowers it
 * days ahead (a legal lowering); once the lowered expiry passed and an inspection consumed the day,
 * the longer store must not take its fast path into that day on the strength of what it learnt:
 * its entry is an expired replay and a cursor below it is `CURSOR_EXPIRED`. Days pass here, so both
 * stores run on one injected clock (the contract's real-time run cannot wait days); the server's
 * TTLs are whole days long and play no part.
 */
jest.setTimeout(GATE_CASE_TIMEOUT_MS);

const EPOCH = 21;
let gate: MailboxGate;

beforeAll(async () => {
  gate = await openMailboxGate('retchange');
}, GATE_SETUP_TIMEOUT_MS);
afterAll(async () => gate?.drop(), GATE_SETUP_TIMEOUT_MS);

const seq = (o: bigint): bigint => composeMailboxSeq(EPOCH, o);
const TOP = composeMailboxSeq(EPOCH, (1n << 47n) - 2n);

describe('a retention decrease while both retentions write (Cassandra, injected clock)', () => {
  it('the longer store reads the lowered expiry again before relying on the one it learnt: no entry lands in the consumed day', async () => {
    const clock = new ManualClock(BigInt(Date.now()));
    const shardEpoch = { shard: randomShard(), epoch: EPOCH };
    const open = (retentionMs: bigint) =>
      new ScyllaMailboxStore({ session: gate.session, shardEpoch, gc: { entryRetentionMs: retentionMs, dispatchDedupeMs: DAY_MS }, clock });
    const long = open(7n * DAY_MS);
    const short = open(3n * DAY_MS);
    const yesterday = BigInt(dayOf(clock.nowMs())) * DAY_MS - DAY_MS + 1_000n;
    const [t, u] = [rid(), rid()];

    await long.appendBatch([entryInput(t, u, seq(10n), yesterday)]);
    await long.appendBatch([entryInput(t, u, seq(11n), yesterday)]); // fast path: the day is registered, days from expiry
    expect(await short.appendBatch([entryInput(t, u, seq(12n), yesterday)])).toEqual({ written: 1, expired: 0 }); // lowers the day's expiry
    clock.set(entryExpiry(yesterday, 3n * DAY_MS));
    expect(clock.nowMs()).toBeGreaterThan(BigInt(Date.now()) + LEARNT_LEDGER_TRUST_MS);
    const consumed = await short.rangeScan(t, u, seq(11n), TOP, 100).catch((e: unknown) => e);
    expect(consumed).toBeInstanceOf(CursorExpiredError);
    expect((consumed as CursorExpiredError).boundary).toBe(seq(12n));

    expect(await long.appendBatch([entryInput(t, u, seq(13n), yesterday)])).toEqual({ written: 0, expired: 1 });
    for (const s of [long, short]) {
      const err = await s.rangeScan(t, u, seq(12n), TOP, 100).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CursorExpiredError);
      expect((err as CursorExpiredError).boundary).toBe(seq(13n));
    }
  });
});
