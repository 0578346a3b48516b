import { DAY_MS, composeMailboxSeq, epochStartSeq } from '@qim/store-core';
import type { Id128, PageReport, ShardEpoch } from '@qim/store-core';
import { StatementCounter } from '../session/statement-counter';
import { DEFAULT_MAX_IN_FLIGHT } from '../session/in-flight-limit';
import { ScyllaMailboxStore } from './scylla-mailbox-store';
import { DirectReads } from '../testing/direct-reads';
import { makePage, makeRecord, randomShard, rid, sortedIds } from '../testing/dispatch-driver';
import { GATE_SETUP_TIMEOUT_MS, openMailboxGate } from '../testing/mailbox-gate';
import type { MailboxGate } from '../testing/mailbox-gate';
import { RequestTally } from '../testing/request-tally';

/**
 * Scylla gate, bounded pressure (ADR-0022 §8): two messages to a 10,000-member conversation are
 * applied with the store's default in-flight bound while readers keep scanning through the same
 * store; no driver saturation error anywhere, and the scans keep answering.
 */
jest.setTimeout(600_000);

const EPOCH = 5;
const RECIPIENTS = 10_000;
const tally = new RequestTally();
let gate: MailboxGate;

beforeAll(async () => {
  gate = await openMailboxGate('pressure', { requestTracker: tally });
}, GATE_SETUP_TIMEOUT_MS);
afterAll(async () => gate?.drop(), GATE_SETUP_TIMEOUT_MS);

const quantile = (sorted: readonly number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

it(
  'a 10,000-recipient dispatch (first day, then registered) applies with zero driver-saturation errors ' + 'while concurrent rangeScans keep answering',
  async () => {
    const se: ShardEpoch = { shard: randomShard(), epoch: EPOCH };
    const counter = new StatementCounter();
    const store = new ScyllaMailboxStore({
      session: gate.session,
      shardEpoch: se,
      gc: { entryRetentionMs: 7n * DAY_MS, dispatchDedupeMs: 7n * DAY_MS },
      counter,
    });
    const t = rid();
    const users = sortedIds(RECIPIENTS);
    const readers = users.slice(0, 50);
    const now = BigInt(Date.now());
    await store.applyPage(makePage(0n, 0n, [[0n, makeRecord(se.shard, t, readers, now)]]));
    tally.reset();
    counter.reset();

    const latencies: number[] = [];
    const scanErrors: unknown[] = [];
    let applying = true;
    const scanLoop = async (): Promise<void> => {
      while (applying) {
        const u: Id128 = readers[Math.floor(Math.random() * readers.length)]!;
        const t0 = performance.now();
        try {
          const upTo = composeMailboxSeq(EPOCH, (await store.frontier()).offset ?? 0n);
          const page = await store.rangeScan(t, u, epochStartSeq(EPOCH), upTo, 50);
          if (page.entries.length === 0) throw new Error(`reader ${u} saw no entry`);
        } catch (err) {
          scanErrors.push(err);
        }
        latencies.push(performance.now() - t0);
      }
    };
    const started = performance.now();
    const scans = Array.from({ length: 4 }, scanLoop);
    const reports: PageReport[] = [];
    const applyMs: number[] = [];
    try {
      for (const offset of [1n, 2n]) {
        const t0 = performance.now();
        reports.push(await store.applyPage(makePage(offset, offset, [[offset, makeRecord(se.shard, t, users, now)]])));
        applyMs.push(performance.now() - t0);
      }
    } finally {
      applying = false;
      await Promise.all(scans);
    }
    const seconds = (performance.now() - started) / 1000;
    const sorted = [...latencies].sort((a, b) => a - b);
    const p50 = quantile(sorted, 0.5);
    const p99 = quantile(sorted, 0.99);
    console.log(
      `10,000-recipient dispatch ×2: ${seconds.toFixed(1)} s (${((2 * RECIPIENTS) / seconds).toFixed(0)} entries/s), ` +
        `peak in flight ${store.peakStatementsInFlight}, LWTs ${counter.lwtCount()}, requests ${tally.requests}, driver errors ${tally.errors.length}; ` +
        `concurrent rangeScans: ${latencies.length}, p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${sorted[sorted.length - 1]!.toFixed(1)} ms`,
    );

    expect(reports.map((r) => [r.frontier, r.entriesWritten, r.entriesExpired])).toEqual([
      [1n, RECIPIENTS, 0],
      [2n, RECIPIENTS, 0],
    ]);
    expect(tally.errors).toEqual([]);
    expect(scanErrors).toEqual([]);
    expect(store.peakStatementsInFlight).toBeLessThanOrEqual(DEFAULT_MAX_IN_FLIGHT);
    expect(counter.peakInFlight).toBeLessThanOrEqual(DEFAULT_MAX_IN_FLIGHT);
    expect(counter.lwtCount()).toBe(RECIPIENTS - readers.length);
    expect(latencies.length).toBeGreaterThan(20);
    // Scans kept answering *during* each apply: a scan queued behind a page's writes would take about
    // as long as the apply. Measured against the applies of this run, not a fixed number of ms, so a
    // loaded machine (slower scans and slower applies alike) does not decide the verdict.
    expect(p99).toBeLessThan(Math.min(...applyMs) / 4);
    const direct = new DirectReads(gate.session);
    for (const u of users.filter((_, i) => i % 97 === 0)) {
      expect((await direct.entryRows(t, u)).map((r) => r['mailbox_seq'])).toEqual(
        readers.includes(u)
          ? [composeMailboxSeq(EPOCH, 0n), composeMailboxSeq(EPOCH, 1n), composeMailboxSeq(EPOCH, 2n)]
          : [composeMailboxSeq(EPOCH, 1n), composeMailboxSeq(EPOCH, 2n)],
      );
    }
  },
);
