import {
  CorruptEntryError,
  CursorExpiredError,
  DAY_MS,
  EpochMismatchError,
  InvalidInputError,
  composeMailboxSeq,
  dayOf,
  decodeActiveLedger,
  decodeMailboxEntry,
  entryExpiry,
  epochStartSeq,
} from '@qim/store-core';
import { checkReadiness } from '../readiness/readiness';
import { migrate } from '../migrate/migrate';
import { StatementCounter } from '../session/statement-counter';
import { entryTtlSeconds } from './retention/entry-ttl';
import { MAILBOX_TABLES } from './schema';
import { ScyllaMailboxStore } from './scylla-mailbox-store';
import { DirectReads } from '../testing/direct-reads';
import { randomShard, entryInput, rid } from '../testing/dispatch-driver';
import { GATE_CASE_TIMEOUT_MS, GATE_SETUP_TIMEOUT_MS, openMailboxGate } from '../testing/mailbox-gate';
import type { MailboxGate } from '../testing/mailbox-gate';
import { ScyllaMailboxHarness } from '../testing/scylla-mailbox-harness';

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
  return new ScyllaMailboxStore({
    session: gate.session,
    shardEpoch: { shard: randomShard(), epoch: EPOCH },
    gc: { entryRetentionMs, dispatchDedupeMs: WEEK },
    counter,
  });
}
const seq = (o: bigint): bigint => composeMailboxSeq(EPOCH, o);
const START = epochStartSeq(EPOCH);
const TOP = composeMailboxSeq(EPOCH, (1n << 47n) - 2n);
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
  it(
    'migrate created exactly the frontier layout; mailbox_entry uses TWCS with gc_grace_seconds 86400; ' +
      'a second migrate creates nothing; readiness is green',
    async () => {
      expect([...gate.migration.tablesCreated].sort()).toEqual([
        'dispatch_index',
        'mailbox_entry',
        'mailbox_meta',
        'mailbox_retention_bucket_v3',
        'mailbox_retention_meta',
        'shard_frontier',
      ]);
      const rs = await gate.session.client.execute(
        'SELECT compaction, gc_grace_seconds, default_time_to_live FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?',
        [gate.keyspace, 'mailbox_entry'],
      );
      expect(rs.rows[0]!['compaction']['class']).toMatch(/TimeWindowCompactionStrategy$/);
      expect(rs.rows[0]!['gc_grace_seconds']).toBe(86_400);
      expect(rs.rows[0]!['default_time_to_live']).toBe(0);
      expect(await migrate(gate.session, MAILBOX_TABLES)).toMatchObject({ keyspaceCreated: false, tablesCreated: [], columnsAdded: [] });
      expect(await checkReadiness(gate.session, MAILBOX_TABLES)).toMatchObject({ ready: true, problems: [] });
    },
  );

  it('readiness is not green for a keyspace that was never migrated', async () => {
    const absent = { ...gate.session, config: { ...gate.session.config, keyspace: `${gate.keyspace}_absent` } };
    const report = await checkReadiness(absent, MAILBOX_TABLES);
    expect(report.ready).toBe(false);
    expect(report.problems.join('\n')).toMatch(/does not exist/);
  });
});

describe('whole-group entry', () => {
  it('one row per (user, seq) holds the whole canonical group; its TTL ends at the fixed absolute expiry and a later replay does not renew it', async () => {
    const store = open();
    const [t, u] = [rid(), rid()];
    const createdAt = BigInt(Date.now());
    const input = entryInput(t, u, seq(3n), createdAt, 3);
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

describe('appendBatch input', () => {
  it('two groups for one (user, seq) in one call → InvalidInput and nothing written', async () => {
    const store = open();
    const [t, u, v] = [rid(), rid(), rid()];
    const now = BigInt(Date.now());
    counter.reset();
    await expect(store.appendBatch([entryInput(t, v, seq(4n), now), entryInput(t, u, seq(5n), now), entryInput(t, u, seq(5n), now, 2)])).rejects.toBeInstanceOf(
      InvalidInputError,
    );
    expect(counter.snapshot()).toEqual([]);
    expect(await direct.entryRows(t, v)).toEqual([]);
    expect(await direct.retentionMeta(t, u)).toBeNull();
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
    await store.appendBatch([entryInput(t, u, seq(8n), plan.yesterday), entryInput(t, u, seq(9n), plan.today)]);
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
    await store.appendBatch([entryInput(t, u, seq(10n), plan.today), entryInput(t, u, seq(20n), plan.yesterday), entryInput(t, u, seq(30n), plan.today)]);
    expect((await store.rangeScan(t, u, START, TOP, 10)).entries.map((e) => e.mailboxSeq)).toEqual([seq(10n), seq(20n), seq(30n)]);
    await sleepUntil(entryExpiry(plan.yesterday, plan.retention) + 1_100n);
    const err = await store.rangeScan(t, u, seq(10n), TOP, 10).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CursorExpiredError);
    expect((err as CursorExpiredError).boundary).toBe(seq(20n));
    expect((await direct.entryRows(t, u)).map((r) => r['mailbox_seq'])).toEqual([seq(10n), seq(30n)]);
    const meta = (await direct.retentionMeta(t, u))!;
    expect(meta['expired_gap_boundary']).toBe(seq(20n));
    expect(meta['inspected_through_bucket']).toBe(BigInt(dayOf(plan.yesterday)));
    // ADR-0022 §5: today's later entry (seq 30) took the no-LWT path; the day's highest seq rides on its bucket proof.
    expect(decodeActiveLedger(meta['active_ledger'] as Buffer).map((i) => [i.day, i.maxSeq])).toEqual([[dayOf(plan.today), seq(10n)]]);
    expect((await direct.proofRows(t, u)).map(([epoch, day, max]) => [epoch, Number(day), max])).toEqual([
      [EPOCH, dayOf(plan.yesterday), seq(20n)],
      [EPOCH, dayOf(plan.today), seq(30n)],
    ]);
    expect(await direct.trimRow(t, u)).toBeNull();
    expect((await store.rangeScan(t, u, seq(20n), TOP, 10)).entries.map((e) => e.mailboxSeq)).toEqual([seq(30n)]);
  });
});

describe('exact gap boundary without raising the ledger item (ADR-0022 §5)', () => {
  it(
    'a day whose highest seq rides only on its proof is consumed at the proof by the next day registration ' + '→ CursorExpired at that seq, never a skip',
    async () => {
      const plan = soon(2_500n);
      const store = open(plan.retention);
      const [t, u] = [rid(), rid()];
      await store.appendBatch([entryInput(t, u, seq(20n), plan.yesterday)]);
      const day = dayOf(plan.yesterday);
      // What a no-LWT append of seq 40 on that day leaves: the proof raised by stamp, the ledger item untouched.
      await direct.exec(
        'INSERT INTO {ks}.mailbox_retention_bucket_v3 (tenant_id, user_id, epoch, day, max_seq, expires_at) VALUES (?, ?, ?, ?, ?, ?) USING TIMESTAMP ?',
        [Buffer.from(t, 'hex'), Buffer.from(u, 'hex'), EPOCH, BigInt(day), seq(40n), entryExpiry(plan.yesterday, plan.retention), seq(40n)],
      );
      expect(decodeActiveLedger((await direct.retentionMeta(t, u))!['active_ledger'] as Buffer).map((i) => [i.day, i.maxSeq])).toEqual([[day, seq(20n)]]);
      await sleepUntil(entryExpiry(plan.yesterday, plan.retention) + 1_100n);
      await store.appendBatch([entryInput(t, u, seq(50n), plan.today)]);
      const meta = (await direct.retentionMeta(t, u))!;
      expect(meta['expired_gap_boundary']).toBe(seq(40n));
      const err = await store.rangeScan(t, u, seq(20n), TOP, 10).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CursorExpiredError);
      expect((err as CursorExpiredError).boundary).toBe(seq(40n));
      expect((await store.rangeScan(t, u, seq(40n), TOP, 10)).entries.map((e) => e.mailboxSeq)).toEqual([seq(50n)]);
    },
  );
});

describe('range scan', () => {
  it('pages cut on entry boundaries walk every entry once and only the last page claims upTo', async () => {
    const store = open();
    const [t, u] = [rid(), rid()];
    const now = BigInt(Date.now());
    await store.appendBatch(Array.from({ length: 12 }, (_, i) => entryInput(t, u, seq(BigInt(100 + i)), now, 1 + (i % 3))));
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
});
