import {
  CorruptEntryError,
  CursorExpiredError,
  DAY_MS,
  EpochMismatchError,
  LANE_COUNT,
  WatermarkNotReadyError,
  composeMailboxSeq,
  dayOf,
  decodeActiveLedger,
  decodeMailboxEntry,
  entryExpiry,
  epochStartSeq,
  id128ToBytes,
} from '@qim/store-core';
import type { Id128, MailboxEntryInput } from '@qim/store-core';
import { checkReadiness } from '../readiness/readiness';
import { migrate } from '../migrate/migrate';
import { StatementCounter } from './cql/statement-counter';
import { entryTtlSeconds } from './retention/entry-ttl';
import { MAILBOX_TABLES } from './schema';
import { ScyllaMailboxStore } from './scylla-mailbox-store';
import { DirectReads } from './test-support/direct-reads';
import { completeAllChunks, makeDispatch, randomShard, rid } from './test-support/dispatch-driver';
import { GATE_CASE_TIMEOUT_MS, GATE_SETUP_TIMEOUT_MS, openMailboxGate } from './test-support/mailbox-gate';
import type { MailboxGate } from './test-support/mailbox-gate';
import { ScyllaMailboxHarness } from './test-support/scylla-mailbox-harness';

jest.setTimeout(GATE_CASE_TIMEOUT_MS);

const EPOCH = 7;
const WEEK = 7n * DAY_MS;
let gate: MailboxGate;
let direct: DirectReads;
const counter = new StatementCounter();

beforeAll(async () => {
  gate = await openMailboxGate('gate');
  direct = new DirectReads(gate.session);
}, GATE_SETUP_TIMEOUT_MS);
afterAll(async () => gate?.drop(), GATE_SETUP_TIMEOUT_MS);

function open(entryRetentionMs = WEEK): ScyllaMailboxStore {
  return new ScyllaMailboxStore({ session: gate.session, shardEpoch: { shard: randomShard(), epoch: EPOCH }, gc: { entryRetentionMs, dispatchGcDelayMs: 60_000n }, counter });
}
const seq = (o: bigint): bigint => composeMailboxSeq(EPOCH, o);
const START = epochStartSeq(EPOCH);
const TOP = composeMailboxSeq(EPOCH, (1n << 47n) - 2n);
const entry = (tenantId: Id128, userId: Id128, s: bigint, createdAt: bigint, events = 1): MailboxEntryInput => ({
  tenantId,
  userId,
  mailboxSeq: s,
  createdAt,
  events: Array.from({ length: events }, (_, ordinal) => ({ ordinal, eventId: rid(), payload: Buffer.from(`e${ordinal}`) })),
});
/** A retention making yesterday's bucket expire `inMs` from now while today's lives about a day longer. */
function soon(inMs: bigint): { retention: bigint; yesterday: bigint; today: bigint } {
  const now = BigInt(Date.now());
  const todayStart = BigInt(dayOf(now)) * DAY_MS;
  return { retention: now + inMs - todayStart, yesterday: todayStart - DAY_MS + 1_000n, today: now };
}
const sleepUntil = async (ms: bigint): Promise<void> => {
  const wait = Number(ms - BigInt(Date.now()));
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
};

describe('explicit migration and readiness', () => {
  it('migrate created every mailbox table; mailbox_entry uses TWCS with gc_grace_seconds 86400; a second migrate creates nothing; readiness is green', async () => {
    expect([...gate.migration.tablesCreated].sort()).toEqual(MAILBOX_TABLES.map((t) => t.name).sort());
    const rs = await gate.session.client.execute(
      'SELECT compaction, gc_grace_seconds, default_time_to_live FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?',
      [gate.keyspace, 'mailbox_entry'],
    );
    expect(rs.rows[0]!['compaction']['class']).toMatch(/TimeWindowCompactionStrategy$/);
    expect(rs.rows[0]!['gc_grace_seconds']).toBe(86_400);
    expect(rs.rows[0]!['default_time_to_live']).toBe(0);
    expect(await migrate(gate.session, MAILBOX_TABLES)).toMatchObject({ keyspaceCreated: false, tablesCreated: [], columnsAdded: [] });
    expect(await checkReadiness(gate.session, MAILBOX_TABLES)).toMatchObject({ ready: true, problems: [] });
  });

  it('readiness is not green for a keyspace that was never migrated', async () => {
    const absent = { ...gate.session, config: { ...gate.session.config, keyspace: `${gate.keyspace}_absent` } };
    const report = await checkReadiness(absent, MAILBOX_TABLES);
    expect(report.ready).toBe(false);
    expect(report.problems.join('\n')).toMatch(/does not exist/);
  });
});

describe('stable dispatch', () => {
  it('first sight fixes the receipt with 66 LWTs (progress, observation, 64 lane sources); every later sight reuses it and is indexed in all 64 lanes', async () => {
    const store = open();
    const { manifest, digest } = makeDispatch(rid(), 5);
    counter.reset();
    const receipt = await store.beginDispatch(manifest.dispatchId, 10n, manifest, digest);
    expect(counter.snapshot().filter((c) => c.lwt).map((c) => [c.name, c.count])).toEqual([
      ['observation.insert', 1],
      ['progress.create', 1],
      ['source.insert', LANE_COUNT],
    ]);
    for (const o of [12n, 11n, 10n]) expect(await store.beginDispatch(manifest.dispatchId, o, manifest, digest)).toEqual(receipt);
    expect(receipt).toMatchObject({ canonicalOffset: 10n, mailboxSeq: seq(10n) });
    const facts = await direct.dispatchFacts(store.shardEpoch.shard, manifest.dispatchId);
    expect(facts.filter((f) => f.table === 'dispatch_observation').map((f) => f.row['observed_offset'])).toEqual([10n, 11n, 12n]);
    expect(facts.filter((f) => f.table === 'lane_dispatch')).toHaveLength(3 * LANE_COUNT);
    expect((await store.dispatchProgress(manifest.dispatchId))!.maxObservedOffset).toBe(12n);
  });
});

describe('whole-group entry', () => {
  it('one row per (user, seq) holds the whole canonical group; its TTL ends at the fixed absolute expiry and a later replay does not renew it', async () => {
    const store = open();
    const [t, u] = [rid(), rid()];
    const createdAt = BigInt(Date.now());
    const input = entry(t, u, seq(3n), createdAt, 3);
    await store.appendBatch([{ ...input, events: [...input.events].reverse() }]);
    const expiresAt = entryExpiry(createdAt, WEEK);
    const endOf = (ttl: number, at: number): number => Math.floor(at / 1000) + ttl;
    const [row] = await direct.entryRows(t, u);
    const firstEnd = endOf(row!['ttl'] as number, Date.now());
    expect(Math.abs(firstEnd - Number((expiresAt + 999n) / 1000n))).toBeLessThanOrEqual(1);
    expect(decodeMailboxEntry(row!['entry'] as Buffer).events.map((e) => e.ordinal)).toEqual([0, 1, 2]);
    await new Promise((r) => setTimeout(r, 1_500));
    await store.appendBatch([{ ...input, events: input.events.slice(0, 2) }]);
    const rows = await direct.entryRows(t, u);
    expect(rows).toHaveLength(1);
    expect(decodeMailboxEntry(rows[0]!['entry'] as Buffer).events).toHaveLength(2);
    expect(Math.abs(endOf(rows[0]!['ttl'] as number, Date.now()) - firstEnd)).toBeLessThanOrEqual(1);
    expect(entryTtlSeconds(expiresAt, BigInt(Date.now()))).toBeLessThanOrEqual(row!['ttl'] as number);
  });
});

describe('clean user and epoch shortcuts', () => {
  it('a clean user costs the trim and meta reads only; after > upTo and a foreign epoch cost no statement at all', async () => {
    const store = open();
    const [t, u] = [rid(), rid()];
    counter.reset();
    expect(await store.rangeScan(t, u, START, seq(50n), 10)).toEqual({ entries: [], next: seq(50n), hasMore: false });
    expect(counter.snapshot().map((c) => c.name)).toEqual(['retention_meta.select', 'trim.select']);
    counter.reset();
    expect(await store.rangeScan(t, u, seq(9n), seq(2n), 10)).toEqual({ entries: [], next: seq(9n), hasMore: false });
    await expect(store.rangeScan(t, u, epochStartSeq(EPOCH + 1), TOP, 10)).rejects.toBeInstanceOf(EpochMismatchError);
    await expect(store.rangeScan(t, u, START, composeMailboxSeq(EPOCH - 1, 4n), 10)).rejects.toBeInstanceOf(EpochMismatchError);
    expect(counter.snapshot()).toEqual([]);
  });
});

describe('V4 retention proof on the real server', () => {
  it('an active ledger catches a hand-deleted bucket proof (CorruptEntry) and leaves the meta untouched', async () => {
    const plan = soon(2_500n);
    const store = open(plan.retention);
    const [t, u] = [rid(), rid()];
    await store.appendBatch([entry(t, u, seq(8n), plan.yesterday), entry(t, u, seq(9n), plan.today)]);
    await new ScyllaMailboxHarness(gate.session).removeBucketProof(t, u, EPOCH, dayOf(plan.yesterday));
    expect((await store.rangeScan(t, u, START, TOP, 10)).entries).toHaveLength(2);
    const before = await direct.retentionMeta(t, u);
    await sleepUntil(entryExpiry(plan.yesterday, plan.retention) + 1_100n);
    await expect(store.rangeScan(t, u, seq(9n), TOP, 10)).rejects.toBeInstanceOf(CorruptEntryError);
    expect(await direct.retentionMeta(t, u)).toEqual(before);
  });

  it('an expired high-seq bucket beside a live low-seq bucket → CursorExpired at the high seq; meta trim never moved', async () => {
    const plan = soon(2_500n);
    const store = open(plan.retention);
    const [t, u] = [rid(), rid()];
    await store.appendBatch([entry(t, u, seq(10n), plan.today), entry(t, u, seq(20n), plan.yesterday), entry(t, u, seq(30n), plan.today)]);
    expect((await store.rangeScan(t, u, START, TOP, 10)).entries.map((e) => e.mailboxSeq)).toEqual([seq(10n), seq(20n), seq(30n)]);
    await sleepUntil(entryExpiry(plan.yesterday, plan.retention) + 1_100n);
    const err = await store.rangeScan(t, u, seq(10n), TOP, 10).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CursorExpiredError);
    expect((err as CursorExpiredError).boundary).toBe(seq(20n));
    expect((await direct.entryRows(t, u)).map((r) => r['mailbox_seq'])).toEqual([seq(10n), seq(30n)]);
    const meta = (await direct.retentionMeta(t, u))!;
    expect(meta['expired_gap_boundary']).toBe(seq(20n));
    expect(meta['inspected_through_bucket']).toBe(BigInt(dayOf(plan.yesterday)));
    expect(decodeActiveLedger(meta['active_ledger'] as Buffer).map((i) => [i.day, i.maxSeq])).toEqual([[dayOf(plan.today), seq(30n)]]);
    expect(await direct.trimRow(t, u)).toBeNull();
    expect((await store.rangeScan(t, u, seq(20n), TOP, 10)).entries.map((e) => e.mailboxSeq)).toEqual([seq(30n)]);
  });
});

describe('range scan and watermark', () => {
  it('pages cut on entry boundaries walk every entry once and only the last page claims upTo', async () => {
    const store = open();
    const [t, u] = [rid(), rid()];
    const now = BigInt(Date.now());
    await store.appendBatch(Array.from({ length: 12 }, (_, i) => entry(t, u, seq(BigInt(100 + i)), now, 1 + (i % 3))));
    const seen: bigint[] = [];
    let after = START;
    for (let page = 0; page < 20; page++) {
      const p = await store.rangeScan(t, u, after, seq(200n), 4);
      seen.push(...p.entries.map((e) => e.mailboxSeq));
      after = p.next;
      if (!p.hasMore) break;
      expect(p.next).toBe(p.entries[p.entries.length - 1]!.mailboxSeq);
    }
    expect(after).toBe(seq(200n));
    expect(seen).toEqual(Array.from({ length: 12 }, (_, i) => seq(BigInt(100 + i))));
  });

  it('laneWatermark recomputes W from completion facts: a hand-deleted completion below W → WatermarkNotReady', async () => {
    const store = open();
    const { manifest, digest } = makeDispatch(rid(), 3);
    const receipt = await store.beginDispatch(manifest.dispatchId, 20n, manifest, digest);
    await completeAllChunks(store, receipt, manifest, BigInt(Date.now()));
    const lane = manifest.lanes.find((l) => l.chunks.length > 0)!.lane;
    expect(await store.advanceWatermark(lane, null, 20n)).toEqual({ lane, w: 20n, floor: null });
    expect(await store.laneWatermark(lane)).toEqual({ lane, w: 20n, floor: null });
    await direct.exec('DELETE FROM {ks}.dispatch_chunk WHERE shard = ? AND dispatch_id = ? AND lane = ? AND chunk_id = 0', [
      store.shardEpoch.shard,
      id128ToBytes(manifest.dispatchId),
      lane,
    ]);
    await expect(store.laneWatermark(lane)).rejects.toBeInstanceOf(WatermarkNotReadyError);
  });
});
