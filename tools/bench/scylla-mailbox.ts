/**
 * Benchmark of the Scylla mailbox store's dispatch path against a real CQL server (the gate's
 * cluster: QIM_TEST_SCYLLA_ADDR/KEYSPACE/DC/RF, all required). One 1,000-recipient dispatch through
 * every step, counting the statements of each step by name (LWTs separately), then the same 1,000
 * entry rows written as raw prepared INSERTs with the same concurrency, side by side.
 * Run: tools/bench/scylla-mailbox.sh  (a scratch keyspace is created by `migrate` and dropped).
 */
import { randomBytes } from 'node:crypto';
import { LANE_COUNT, buildManifest, entryExpiry, encodeMailboxEntry, id128ToBytes, manifestDigest } from '@qim/store-core';
import type { DispatchReceipt, Id128, MailboxEntry, MailboxEntryInput, MailboxStore } from '@qim/store-core';
import { scyllaTestConfigFromEnv } from '../../libs/store-scylla/src/config/test-env';
import { migrate } from '../../libs/store-scylla/src/migrate/migrate';
import { connectSession } from '../../libs/store-scylla/src/session/scylla-session';
import type { ScyllaSession } from '../../libs/store-scylla/src/session/scylla-session';
import { MAILBOX_TABLES, ScyllaMailboxStore, StatementCounter } from '../../libs/store-scylla/src/mailbox';
import { entryTtlSeconds } from '../../libs/store-scylla/src/mailbox/retention/entry-ttl';

const RECIPIENTS = Number(process.env['QIM_BENCH_RECIPIENTS'] ?? 1000);
const CHUNK_SIZE = 16;
const CONCURRENCY = 16;
const RETENTION = 7n * 86_400_000n;
const rid = (): Id128 => randomBytes(16).toString('hex') as Id128;

interface StepResult {
  readonly step: string;
  readonly ms: number;
  readonly lwt: number;
  readonly other: number;
  readonly detail: string;
}

async function measure(counter: StatementCounter, step: string, fn: () => Promise<unknown>): Promise<StepResult> {
  counter.reset();
  const t0 = process.hrtime.bigint();
  await fn();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const snap = counter.snapshot();
  const lwt = snap.filter((c) => c.lwt).reduce((n, c) => n + c.count, 0);
  const other = snap.filter((c) => !c.lwt).reduce((n, c) => n + c.count, 0);
  const detail = snap.filter((c) => c.lwt).map((c) => `${c.name}×${c.count}`).join(' ');
  return { step, ms, lwt, other, detail };
}

async function limited<T>(items: readonly T[], fn: (t: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < items.length) await fn(items[next++]!);
  }));
}

async function dispatchRun(store: MailboxStore, counter: StatementCounter): Promise<{ steps: StepResult[]; fanoutMs: number }> {
  const tenantId = rid();
  const manifest = buildManifest({ dispatchId: rid(), tenantId, recipients: Array.from({ length: RECIPIENTS }, rid), chunkSize: CHUNK_SIZE });
  const digest = manifestDigest(manifest);
  const chunks = manifest.lanes.flatMap((l) => l.chunks.map((c) => ({ lane: l.lane, chunk: c })));
  const now = BigInt(Date.now());
  let receipt!: DispatchReceipt;
  const steps: StepResult[] = [];
  steps.push(await measure(counter, 'beginDispatch (first sight)', async () => (receipt = await store.beginDispatch(manifest.dispatchId, 1000n, manifest, digest))));
  steps.push(await measure(counter, 'beginDispatch (duplicate sight)', () => store.beginDispatch(manifest.dispatchId, 1001n, manifest, digest)));
  const entriesOf = (c: (typeof chunks)[number]): MailboxEntryInput[] =>
    c.chunk.users.map((userId) => ({ tenantId, userId, mailboxSeq: receipt.mailboxSeq, createdAt: now, events: [{ ordinal: 0, eventId: rid(), payload: randomBytes(200) }] }));
  const fanout = await measure(counter, `appendChunk × ${chunks.length} (${RECIPIENTS} entries)`, () => limited(chunks, async (c) => void (await store.appendChunk(receipt, c.lane, c.chunk.chunkId, entriesOf(c)))));
  steps.push(fanout);
  steps.push(await measure(counter, 'appendChunk replay (same entries)', () => limited(chunks, async (c) => void (await store.appendChunk(receipt, c.lane, c.chunk.chunkId, entriesOf(c))))));
  steps.push(await measure(counter, `markChunkCompleted × ${chunks.length}`, () => limited(chunks, (c) => store.markChunkCompleted(receipt, c.lane, c.chunk.chunkId))));
  const lanes = Array.from({ length: LANE_COUNT }, (_, lane) => lane);
  steps.push(await measure(counter, 'advanceWatermark 64 lanes × 2 offsets', () => limited(lanes, async (lane) => {
    await store.advanceWatermark(lane, null, 1000n);
    await store.advanceWatermark(lane, 1000n, 1001n);
  })));
  steps.push(await measure(counter, 'advanceFloor 64 lanes', () => limited(lanes, async (lane) => void (await store.advanceFloor(lane, null, 1001n)))));
  steps.push(await measure(counter, 'gcCompletedDispatches (1 dispatch, 2 sights)', () => store.gcCompletedDispatches(BigInt(Date.now()), 10)));
  return { steps, fanoutMs: fanout.ms };
}

async function rawInserts(session: ScyllaSession): Promise<number> {
  const cql = `INSERT INTO ${session.config.keyspace}.mailbox_entry (tenant_id, user_id, mailbox_seq, entry) VALUES (?, ?, ?, ?) USING TTL ?`;
  const tenantId = rid();
  const now = BigInt(Date.now());
  const rows: MailboxEntry[] = Array.from({ length: RECIPIENTS }, () => ({
    tenantId, userId: rid(), mailboxSeq: (1n << 47n) | 1001n, createdAt: now, expiresAt: entryExpiry(now, RETENTION),
    events: [{ ordinal: 0, eventId: rid(), payload: randomBytes(200) }],
  }));
  const t0 = process.hrtime.bigint();
  await limited(rows, async (e) => {
    await session.client.execute(cql, [id128ToBytes(e.tenantId), id128ToBytes(e.userId), e.mailboxSeq, encodeMailboxEntry(e), entryTtlSeconds(e.expiresAt, BigInt(Date.now()))], { prepare: true, executionProfile: 'write', isIdempotent: true });
  });
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

async function main(): Promise<void> {
  const config = scyllaTestConfigFromEnv(process.env, `_mbx_bench_${randomBytes(3).toString('hex')}`);
  const session = await connectSession(config);
  try {
    await migrate(session, MAILBOX_TABLES);
    const counter = new StatementCounter();
    const store = new ScyllaMailboxStore({ session, shardEpoch: { shard: 1, epoch: 1 }, gc: { entryRetentionMs: RETENTION, dispatchGcDelayMs: 600_000n }, counter, writeConcurrency: CONCURRENCY, gcConcurrency: CONCURRENCY });
    await rawInserts(session); // warm-up: prepare, connections, JIT
    const { steps, fanoutMs } = await dispatchRun(store, counter);
    const rawMs = await rawInserts(session);
    console.log(`\nScylla mailbox dispatch benchmark — ${RECIPIENTS} recipients, chunk size ${CHUNK_SIZE}, concurrency ${CONCURRENCY}, ${config.contactPoints.join(',')}\n`);
    console.log('| step | ms | LWTs | other statements | LWTs by statement |');
    console.log('|---|---:|---:|---:|---|');
    for (const s of steps) console.log(`| ${s.step} | ${s.ms.toFixed(0)} | ${s.lwt} | ${s.other} | ${s.detail} |`);
    const total = steps.reduce((n, s) => n + s.lwt, 0);
    console.log(`\nLWTs per dispatch (all steps above): ${total} (${(total / RECIPIENTS).toFixed(2)} per recipient)`);
    const storeRate = (RECIPIENTS * 1000) / fanoutMs;
    const rawRate = (RECIPIENTS * 1000) / rawMs;
    console.log(`fan-out via appendChunk: ${storeRate.toFixed(0)} entries/s (${fanoutMs.toFixed(0)} ms)`);
    console.log(`raw prepared INSERTs of the same rows: ${rawRate.toFixed(0)} entries/s (${rawMs.toFixed(0)} ms)`);
    console.log(`ratio raw / store: ${(rawRate / storeRate).toFixed(1)}×  (store reaches ${((storeRate / rawRate) * 100).toFixed(1)}% of raw)`);
  } finally {
    await session.client.execute(`DROP KEYSPACE IF EXISTS ${config.keyspace}`, [], { executionProfile: 'write' }).catch(() => undefined);
    await session.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
