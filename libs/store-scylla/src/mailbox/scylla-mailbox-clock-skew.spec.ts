import { CursorExpiredError, DAY_MS, composeMailboxSeq, dayOf, entryExpiry, epochStartSeq } from '@qim/store-core';
import type { Clock, Id128, MailboxStore, RangeScanPage } from '@qim/store-core';
import { ScyllaMailboxStore } from './scylla-mailbox-store';
import { DirectReads } from '../testing/direct-reads';
import { randomShard, entryInput, rid } from '../testing/dispatch-driver';
import { GATE_CASE_TIMEOUT_MS, GATE_SETUP_TIMEOUT_MS, openMailboxGate } from '../testing/mailbox-gate';
import type { MailboxGate } from '../testing/mailbox-gate';

/**
 * Issue 10 item 3 on a real Cassandra: a store whose clock is offset from the server's (by less than
 * the configured allowance) computes whole-second TTLs that the server applies by its own second, so
 * an entry can vanish before its `expiresAt` as the reader sees it. No page may claim coverage
 * (`next = upTo` without the entry) in that window: the scan must end as `CursorExpired`.
 */
jest.setTimeout(GATE_CASE_TIMEOUT_MS);

const EPOCH = 11;
let gate: MailboxGate;
let direct: DirectReads;

beforeAll(async () => {
  gate = await openMailboxGate('skew');
  direct = new DirectReads(gate.session);
}, GATE_SETUP_TIMEOUT_MS);
afterAll(async () => gate?.drop(), GATE_SETUP_TIMEOUT_MS);

const offsetClock = (offsetMs: bigint): Clock => ({ nowMs: () => BigInt(Date.now()) + offsetMs });
const seq = (o: bigint): bigint => composeMailboxSeq(EPOCH, o);
const START = epochStartSeq(EPOCH);
const TOP = composeMailboxSeq(EPOCH, (1n << 47n) - 2n);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until the real clock is inside `[fromMs, toMs)` of its current second. */
async function atSecondFraction(fromMs: number, toMs: number): Promise<void> {
  for (;;) {
    const f = Date.now() % 1000;
    if (f >= fromMs && f < toMs) return;
    await sleep(f < fromMs ? fromMs - f : 1000 - f + fromMs);
  }
}

/** Outcome of one scan: the page, or the CursorExpired boundary. */
async function scan(store: MailboxStore, tenantId: Id128, userId: Id128): Promise<RangeScanPage | bigint> {
  try {
    return await store.rangeScan(tenantId, userId, START, TOP, 100);
  } catch (e) {
    if (e instanceof CursorExpiredError) return e.boundary;
    throw e;
  }
}

const cases: { name: string; allowance: bigint; writer: bigint; reader: bigint; writeAt: [number, number] }[] = [
  // no allowance configured (the store's default): the TTL's whole second alone, writer 300 ms ahead
  { name: 'default allowance, writer 300 ms ahead', allowance: 0n, writer: 300n, reader: 0n, writeAt: [750, 900] },
  // writer 600 ms ahead of the server (written late in a second: its TTL ends a whole second early), reader on time
  { name: 'writer clock ahead of the server', allowance: 700n, writer: 600n, reader: 0n, writeAt: [450, 700] },
  // writer on time, reader 600 ms behind: the reader still sees 600 ms of life the server no longer grants
  { name: 'reader clock behind the server', allowance: 700n, writer: 0n, reader: -600n, writeAt: [50, 300] },
  // both: writer 400 ms ahead, reader 400 ms behind (each pair within the allowance of 900 ms)
  { name: 'writer ahead and reader behind', allowance: 900n, writer: 400n, reader: -400n, writeAt: [650, 850] },
];

describe('clock skew: no page claims coverage of an entry the server may already have expired', () => {
  it.each(cases)('$name → CursorExpired at the expired seq, never a page without it', async ({ allowance, writer, reader, writeAt }) => {
    const shard = randomShard();
    const [tenantId, userId] = [rid(), rid()];
    // yesterday's bucket expires on a whole second about 6 s from now; today's entries live a day longer
    const now = BigInt(Date.now());
    const todayStart = BigInt(dayOf(now)) * DAY_MS;
    const expiry = ((now + 6_000n) / 1000n) * 1000n;
    const retention = expiry - todayStart;
    const yesterday = todayStart - DAY_MS + 1_000n;
    expect(entryExpiry(yesterday, retention)).toBe(expiry);
    const gc = { entryRetentionMs: retention, dispatchDedupeMs: DAY_MS };
    const w = new ScyllaMailboxStore({
      session: gate.session,
      shardEpoch: { shard, epoch: EPOCH },
      gc,
      clock: offsetClock(writer),
      clockSkewAllowanceMs: allowance,
    });
    const r = new ScyllaMailboxStore({
      session: gate.session,
      shardEpoch: { shard, epoch: EPOCH },
      gc,
      clock: offsetClock(reader),
      clockSkewAllowanceMs: allowance,
    });

    // a live entry of today first (so a page that skips the expiring one is visibly "complete")
    await w.appendBatch([entryInput(tenantId, userId, seq(9n), now)]);
    await atSecondFraction(...writeAt);
    await w.appendBatch([entryInput(tenantId, userId, seq(5n), yesterday)]);
    const first = await r.rangeScan(tenantId, userId, START, TOP, 100);
    expect(first.entries.map((e) => e.mailboxSeq)).toEqual([seq(5n), seq(9n)]);

    // wait until the server has dropped the entry (by its own clock), then read at once
    let gone = false;
    while (!gone && BigInt(Date.now()) < expiry + 3_000n) {
      gone = !(await direct.entryRows(tenantId, userId)).some((row) => BigInt(row['mailbox_seq'].toString()) === seq(5n));
      if (!gone) await sleep(20);
    }
    expect(gone).toBe(true);
    const out = await scan(r, tenantId, userId);
    // never a page that claims (START, TOP] with seq 5 silently missing
    expect(out).toBe(seq(5n));
    const after = await r.rangeScan(tenantId, userId, seq(5n), TOP, 100);
    expect(after.entries.map((e) => e.mailboxSeq)).toEqual([seq(9n)]);
  });
});
