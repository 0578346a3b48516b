import { randomBytes } from 'node:crypto';
import type { types } from 'cassandra-driver';
import { COMMIT_AUX_TTL_MS } from '@qim/store-core';
import type { Clock, Id128, ReserveInput, SendRequest } from '@qim/store-core';
import { mapBounded } from './bounded';
import type { ScyllaMessageStore } from './scylla-message-store';
import { RECOVERY_PROGRESS_SCOPE } from './tables/recovery-progress-table';
import { recoveryBucketOf } from './tables/recovery-table';
import { GATE_CASE_TIMEOUT_MS, GATE_SETUP_TIMEOUT_MS, MessageGate } from '../testing/message-gate';

/**
 * Scylla gate for the recovery scan under load (issue: recovery starved behind finished commits):
 * finished entries never hide a stuck commit from the next pass, a pass never re-reads a finished
 * prefix, a commit that keeps failing neither pins the progress nor starves newer ones, and a pass
 * never reads entries that may have expired. Stores here use the production aux TTL (2 h), so the
 * scan window is the real one; "old" entries come from writers whose clock lags (their positions).
 */
jest.setTimeout(GATE_CASE_TIMEOUT_MS);

let gate: MessageGate;
beforeAll(async () => {
  gate = await MessageGate.open('recovery');
}, GATE_SETUP_TIMEOUT_MS);
afterAll(async () => {
  await gate?.drop();
}, GATE_SETUP_TIMEOUT_MS);
beforeEach(() => gate.clearRecoveryWindow());

const id = (): Id128 => randomBytes(16).toString('hex') as Id128;
const now = (): bigint => BigInt(Date.now());
const lagging = (ms: bigint): Clock => ({ nowMs: () => now() - ms });
const store = (clock?: Clock): ScyllaMessageStore =>
  gate.store(clock === undefined ? { commitAuxTtlMs: COMMIT_AUX_TTL_MS } : { commitAuxTtlMs: COMMIT_AUX_TTL_MS, clock });
const request = (): SendRequest => ({
  tenantId: id(),
  senderId: id(),
  clientMessageId: id(),
  conversationId: id(),
  kind: 'normal',
  control: false,
  contentType: 'text/plain',
  body: Buffer.from('stuck'),
  retention: { kind: 'default' },
});
const input = (r: SendRequest, createdAt: bigint): ReserveInput => ({ request: r, messageId: id(), createdAt, recipients: [r.senderId] });

/** Direct inserts of `n` entries as a finished commit leaves them (marked done), at positions from `first`, 1 ms apart. */
async function finishedEntries(n: number, first: bigint): Promise<void> {
  await mapBounded(
    Array.from({ length: n }, (_, i) => first + BigInt(i)),
    128,
    (position) =>
      gate.exec(
        'INSERT INTO {ks}.commit_recovery_v2 (hour_bucket, position, tenant_id, sender_id, client_message_id, created_at, done) ' +
          'VALUES (?, ?, ?, ?, ?, ?, true) USING TTL 3600',
        [recoveryBucketOf(position), position, randomBytes(16), randomBytes(16), randomBytes(16), position],
      ),
  );
}

/** Runs `fn` recording the statements it executed; counts recovery index pages and commit reads. */
async function counted<T>(fn: () => Promise<T>): Promise<{ result: T; indexPages: number; commitReads: number }> {
  gate.recorder.statements.length = 0;
  gate.recorder.recording = true;
  try {
    const result = await fn();
    const ran = gate.recorder.statements.map((s) => s.cql);
    return {
      result,
      indexPages: ran.filter((c) => /^SELECT .* FROM \S+\.commit_recovery_v2 /s.test(c)).length,
      commitReads: ran.filter((c) => /^SELECT .* FROM \S+\.message_commit /s.test(c)).length,
    };
  } finally {
    gate.recorder.recording = false;
  }
}

async function progressPosition(): Promise<bigint | null> {
  const rs = (await gate.exec('SELECT position FROM {ks}.commit_recovery_progress WHERE scope = ?', [RECOVERY_PROGRESS_SCOPE])) as types.ResultSet;
  const p: unknown = rs.rows[0]?.['position'];
  return typeof p === 'bigint' ? p : null;
}

const keysOf = (xs: readonly { intent: { key: unknown } }[]): unknown[] => xs.map((x) => x.intent.key);

describe('recovery scan: progress over a finished prefix, bounded passes', () => {
  it('20,000 finished commits older than one stuck commit: the next scan returns it; the pass after skips the finished prefix', async () => {
    const t0 = now();
    await finishedEntries(20_000, t0 - 120_000n);
    const stuckReq = request();
    const stuck = await store(lagging(60_000n)).reserve(input(stuckReq, t0 - 60_000n));
    const scanner = store();

    const first = await counted(() => scanner.scanRecoverableCommits(now() - 10_000n, 100));
    expect(keysOf(first.result)).toEqual([stuck.snapshot.intent.key]);
    expect(first.indexPages).toBeGreaterThanOrEqual(20);
    expect(first.commitReads).toBe(1); // finished entries are passed without reading their commit
    const progress = await progressPosition();
    expect(progress !== null && progress >= t0 - 120_000n + 19_999n).toBe(true);

    const second = await counted(() => scanner.scanRecoverableCommits(now() - 10_000n, 100));
    expect(keysOf(second.result)).toEqual([stuck.snapshot.intent.key]);
    expect(second.indexPages).toBeLessThanOrEqual(3);
  });

  it('a commit that keeps failing neither pins the progress nor starves a newer stuck commit', async () => {
    const t0 = now();
    const poison = await store(lagging(60_000n)).reserve(input(request(), t0 - 60_000n));
    await finishedEntries(3_000, t0 - 59_000n);
    const newer = await store(lagging(40_000n)).reserve(input(request(), t0 - 40_000n));
    const scanner = store();
    const cutoff = (): bigint => now() - 10_000n;

    // one commit per pass, and the first one is never finished (it "keeps failing")
    expect(keysOf(await scanner.scanRecoverableCommits(cutoff(), 1))).toEqual([poison.snapshot.intent.key]);
    expect(keysOf(await scanner.scanRecoverableCommits(cutoff(), 1))).toEqual([newer.snapshot.intent.key]);
    const progress = await progressPosition();
    expect(progress !== null && progress >= t0 - 40_000n - 1_000n).toBe(true);
    // both stay findable after the progress moved past their first entries
    const both = await scanner.scanRecoverableCommits(cutoff(), 10);
    expect(new Set(both.map((s) => s.intent.messageId))).toEqual(new Set([poison.snapshot.intent.messageId, newer.snapshot.intent.messageId]));
  });

  it('an unfinished commit created "in the future" holds the progress only for a while (it is superseded, not reported)', async () => {
    const t0 = now();
    const future = await store(lagging(120_000n)).reserve(input(request(), t0 + 86_400_000n));
    await finishedEntries(1_000, t0 - 119_000n);
    const stuck = await store(lagging(60_000n)).reserve(input(request(), t0 - 60_000n));
    const found = await store().scanRecoverableCommits(now() - 10_000n, 10);
    expect(keysOf(found)).toEqual([stuck.snapshot.intent.key]);
    const progress = await progressPosition();
    expect(progress !== null && progress >= t0 - 61_000n).toBe(true);
    expect(future.created).toBe(true);
  });

  it('entries positioned before now − aux TTL are never read (they may have expired); the live window is', async () => {
    const t0 = now();
    const beyond = await store(lagging(COMMIT_AUX_TTL_MS + 60_000n)).reserve(input(request(), t0 - COMMIT_AUX_TTL_MS - 60_000n));
    const inside = await store(lagging(COMMIT_AUX_TTL_MS - 60_000n)).reserve(input(request(), t0 - COMMIT_AUX_TTL_MS + 60_000n));
    expect(beyond.created && inside.created).toBe(true);
    const found = await counted(() => store().scanRecoverableCommits(now() - 10_000n, 10));
    expect(keysOf(found.result)).toEqual([inside.snapshot.intent.key]);
    expect(found.commitReads).toBe(1);
  });
});
