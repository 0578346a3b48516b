import { DAY_MS, GcNotSafeError, LANE_COUNT, id128ToBytes } from '@qim/store-core';
import type { Id128 } from '@qim/store-core';
import { StatementCounter } from './cql/statement-counter';
import type { GcStep } from './gc/gc-steps';
import { ScyllaMailboxStore } from './scylla-mailbox-store';
import type { ScyllaMailboxStoreOptions } from './scylla-mailbox-store';
import { DirectReads } from './test-support/direct-reads';
import { advanceEverything, completeAllChunks, makeDispatch, randomShard, rid } from './test-support/dispatch-driver';
import { GATE_CASE_TIMEOUT_MS, GATE_SETUP_TIMEOUT_MS, openMailboxGate } from './test-support/mailbox-gate';
import type { MailboxGate } from './test-support/mailbox-gate';

jest.setTimeout(GATE_CASE_TIMEOUT_MS);

let gate: MailboxGate;
let direct: DirectReads;

beforeAll(async () => {
  gate = await openMailboxGate('gc');
  direct = new DirectReads(gate.session);
}, GATE_SETUP_TIMEOUT_MS);
afterAll(async () => gate?.drop(), GATE_SETUP_TIMEOUT_MS);

function open(dispatchGcDelayMs: bigint, extra: Partial<ScyllaMailboxStoreOptions> = {}, shard = randomShard()): ScyllaMailboxStore {
  return new ScyllaMailboxStore({ session: gate.session, shardEpoch: { shard, epoch: 2 }, gc: { entryRetentionMs: 7n * DAY_MS, dispatchGcDelayMs }, ...extra });
}
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A dispatch seen at `offsets` (first = canonical), complete, every lane's W and floor past the last offset. */
async function finishedDispatch(store: ScyllaMailboxStore, offsets: readonly bigint[]): Promise<{ dispatchId: Id128; chunks: number }> {
  const { manifest, digest } = makeDispatch(rid(), 3);
  const receipt = await store.beginDispatch(manifest.dispatchId, offsets[0]!, manifest, digest);
  for (const o of offsets.slice(1)) await store.beginDispatch(manifest.dispatchId, o, manifest, digest);
  await completeAllChunks(store, receipt, manifest, BigInt(Date.now()));
  await advanceEverything(store, null, offsets);
  return { dispatchId: manifest.dispatchId, chunks: manifest.lanes.reduce((n, l) => n + l.chunks.length, 0) };
}

describe('row liveness on the real server (why the GC never uses UPDATE … USING TTL)', () => {
  it('UPDATE … USING TTL after an INSERT leaves a primary-key-only ghost row; a whole-row INSERT … USING TTL leaves nothing', async () => {
    const [shard, id] = [randomShard(), id128ToBytes(rid())];
    const insert = 'INSERT INTO {ks}.dispatch_observation (shard, dispatch_id, observed_offset, recorded_at, gc_deadline) VALUES (?, ?, ?, ?, ?)';
    await direct.exec(insert, [shard, id, 1n, 111n, null]);
    await direct.exec(insert, [shard, id, 2n, 222n, null]);
    await direct.exec('UPDATE {ks}.dispatch_observation USING TTL 1 SET recorded_at = ?, gc_deadline = ? WHERE shard = ? AND dispatch_id = ? AND observed_offset = ?', [111n, 9n, shard, id, 1n]);
    await direct.exec(`${insert} USING TTL 1`, [shard, id, 2n, 222n, 9n]);
    await sleep(2_500);
    const rows = (await direct.exec('SELECT observed_offset, recorded_at, gc_deadline FROM {ks}.dispatch_observation WHERE shard = ? AND dispatch_id = ?', [shard, id])).rows;
    expect(rows.map((r) => [r['observed_offset'], r['recorded_at'], r['gc_deadline']])).toEqual([[1n, null, null]]);
  });
});

describe('dispatch GC on the real server', () => {
  it('three observations of one dispatch are all indexed, and all reclaimed (every row gone at the deadline, no ghost)', async () => {
    const store = open(3_000n);
    const counter = new StatementCounter();
    const { dispatchId } = await finishedDispatch(store, [40n, 41n, 42n]);
    const shard = store.shardEpoch.shard;
    const before = await direct.dispatchFacts(shard, dispatchId);
    expect(before.filter((f) => f.table === 'dispatch_observation').map((f) => f.row['observed_offset'])).toEqual([40n, 41n, 42n]);
    expect(before.filter((f) => f.table === 'lane_dispatch')).toHaveLength(3 * LANE_COUNT);
    expect(before.every((f) => f.ttl === null)).toBe(true);
    const counted = open(3_000n, { counter }, shard);
    const t0 = Date.now();
    expect(await counted.gcCompletedDispatches(BigInt(Date.now()), 10)).toEqual({ examined: 1, reclaimed: 1, more: false });
    const { progress: deadline, index } = await direct.gcDeadlines(shard, dispatchId);
    expect(index).toBe(deadline);
    expect(Number(deadline) - t0).toBeLessThanOrEqual(3_000 + (Date.now() - t0));
    expect(counter.snapshot().find((c) => c.name === 'source.gc_rewrite')?.count).toBe(3 * LANE_COUNT);
    const scheduled = await direct.dispatchFacts(shard, dispatchId);
    expect(scheduled).toHaveLength(before.length);
    expect(scheduled.filter((f) => !(f.ttl !== null && f.ttl > 0 && f.ttl <= 4)).map((f) => [f.table, f.ttl])).toEqual([]);
    await expect(store.dispatchProgress(dispatchId)).rejects.toBeInstanceOf(GcNotSafeError);
    expect(await counted.gcCompletedDispatches(BigInt(Date.now()), 10)).toEqual({ examined: 0, reclaimed: 0, more: false });
    await sleep(Number(deadline!) - Date.now() + 1_200);
    expect(await direct.dispatchFacts(shard, dispatchId)).toEqual([]);
    const ghosts = await direct.exec('SELECT * FROM {ks}.dispatch_observation WHERE shard = ? AND dispatch_id = ?', [shard, id128ToBytes(dispatchId)]);
    expect(ghosts.rows).toEqual([]);
    expect(await store.dispatchProgress(dispatchId)).toBeNull();
    expect(await store.laneWatermark(0)).toEqual({ lane: 0, w: 42n, floor: 42n });
  });

  it('a crash after every single GC step resumes to the same end state with the one deadline unchanged', async () => {
    const store = open(120_000n);
    const { dispatchId, chunks } = await finishedDispatch(store, [70n, 71n]);
    const shard = store.shardEpoch.shard;
    const steps: GcStep[] = [];
    let armed = true;
    const crashing = open(120_000n, { gcConcurrency: 1, gcStepHook: (s) => {
      steps.push(s);
      if (armed) {
        armed = false;
        throw new Error(`simulated crash after ${s.step}`);
      }
    } }, shard);
    let deadline: bigint | null = null;
    let crashes = 0;
    for (;;) {
      armed = true;
      const outcome = await crashing.gcCompletedDispatches(BigInt(Date.now()), 10).then(
        () => 'done' as const,
        (e: Error) => (e.message.startsWith('simulated crash') ? ('crash' as const) : Promise.reject(e)),
      );
      const copies = await direct.gcDeadlines(shard, dispatchId);
      deadline ??= copies.progress;
      expect(copies.progress).toBe(deadline);
      if (copies.index !== null) expect(copies.index).toBe(deadline);
      if (outcome === 'done') break;
      crashes += 1;
      expect(crashes).toBeLessThan(1_000);
    }
    const rewrites = 2 * LANE_COUNT + chunks + 2 + 1 + 1;
    expect(steps.map((s) => s.step).slice(0, 3)).toEqual(['mark', 'mirror', 'phase1']);
    expect(steps.filter((s) => s.step === 'rewrite')).toHaveLength(rewrites);
    expect(steps.filter((s) => s.step === 'lock')).toHaveLength(rewrites - 2);
    expect(crashes).toBe(steps.length);
    const facts = await direct.dispatchFacts(shard, dispatchId);
    expect(facts).toHaveLength(rewrites);
    const end = Number(deadline!) / 1000;
    for (const f of facts) expect(Math.abs(Date.now() / 1000 + f.ttl! - end)).toBeLessThanOrEqual(2);
    expect(await crashing.gcCompletedDispatches(BigInt(Date.now()), 10)).toEqual({ examined: 0, reclaimed: 0, more: false });
  });
});
