import type { BusLogger } from '@qim/bus';
import { HybridLogicalClock, MessageIdSource, MessageSender, WriterMetrics, housekeepingRound, replayAnswer } from '@qim/writer-runtime';
import { FrontierBoard, MailboxMetrics, MailboxReader, MessageRouter, ShardWorker } from '@qim/mailbox-runtime';
import type { Clock, HistoryAuthorizer, Id128, SendRequest } from '@qim/store-core';
import { CursorExpiredError, DurableMessageCommitter, EpochMismatchError, RecoveryRunner, epochStartSeq } from '@qim/store-core';
import { ManualClock } from '@qim/store-core/testing';
import type { BackendKind, SoakBackend, StoreLifetimes } from './backends';
import { growsByDesign } from './structures';
import type { AckedMessage, StorageSample, SyncResult } from './checker';
import { DeviceView, LoopHealth, checkBounded, checkHistory, checkReplay, checkStall } from './checker';
import { memoryCoordination } from '@qim/backends';
import { LogDispatchProducer, LogOutboxPublisher, OrderedLog, drainLog } from './pipeline';

export interface SoakPlan {
  readonly backend: BackendKind;
  readonly days: number;
  readonly retentionDays: number;
  readonly dedupeDays: number;
  readonly ephemeralDays: number;
  readonly users: number;
  readonly conversations: number;
  readonly shards: number;
  readonly sendsPerDay: number;
  readonly seed: number;
  readonly sabotage?: SoakSabotage;
  /**
   * A mailbox epoch bump (operator runbook: stop every mailbox, `QIM_MAILBOX_EPOCH=e+1`, start: new
   * shard stores and frontiers over the dispatch log from then on) in the middle of this simulated
   * day (at noon); devices keep their cursors of the old epoch. Absent: no bump.
   */
  readonly epochBumpDay?: number;
  /**
   * A retention decrease during a rolling restart: from 6 a.m. of `fromDay` on, a second set of
   * mailbox stores with `toDays` of retention runs on the same storage beside the first (pages and
   * syncs alternate between the two); from 6 a.m. the next day (the restart done) only the second
   * set runs. Absent: one retention.
   */
  readonly retentionDecrease?: { readonly fromDay: number; readonly toDays: number };
  /**
   * Redis: the server loses the mailbox's last writes: its keys are snapshot at 11 p.m. of this day
   * and put back after the day's syncs (the last step's pages and the end-of-day drain are lost,
   * after daily devices read them); the mailbox restarts and its shard check resets each shard's
   * position to its frontier + 1 (the runbook's reset-offsets). Absent (or no `lostWrites`): none.
   */
  readonly lostWritesDay?: number;
}

/**
 * Proof that the checks bite, end to end (the run must then FAIL): 'drop-entry' makes the soak's
 * device lose every 400th entry it was given, 'double-entry' count every 400th twice; 'epoch-bump'
 * makes every device move its cursor to the start of the new epoch at the bump, keeping what it
 * holds (a client that skips to the new epoch instead of resyncing on EPOCH_MISMATCH: the old
 * epoch's entries it had not synced yet are silently skipped); 'retention-decrease' makes devices,
 * once the shorter retention runs, read on from the retained boundary a CURSOR_EXPIRED names
 * without resyncing (what expired under the cursor is silently skipped); 'lost-writes' keeps the
 * shard frontiers when Redis loses the mailbox's last writes, so they stand over the lost entries
 * (what the store's run-id and frontier checks prevent).
 */
export type SoakSabotage = 'drop-entry' | 'double-entry' | 'epoch-bump' | 'retention-decrease' | 'lost-writes';

/** What one backend's soak produced. */
export interface SoakResult {
  readonly backend: BackendKind;
  readonly plan: SoakPlan;
  readonly lifetimes: Record<string, string>;
  readonly samples: StorageSample[];
  readonly daily: DayLine[];
  readonly violations: string[];
  readonly wallSeconds: number;
  readonly totals: Record<string, number>;
}

export interface DayLine {
  readonly day: number;
  readonly acked: number;
  readonly replays: number;
  readonly publishFailures: number;
  readonly recovered: number;
  readonly syncs: number;
  readonly cursorExpired: number;
  readonly epochMismatch: number;
  readonly violations: number;
  readonly wallMs: number;
}

type Policy = 'daily' | 'every-2-days' | 'weekly' | 'past-retention' | 'never';

interface Device {
  readonly view: DeviceView;
  readonly policy: Policy;
  readonly periodDays: number | null;
  cursor: bigint | null;
}

/** A deterministic PRNG (mulberry32), so a run can be repeated with its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STEPS_PER_DAY = 24;
/** The recovery and housekeeping loops run every 2 simulated hours (production: every 3 s and 10 s; the soak's load is sparse). */
const LOOP_EVERY_STEPS = 2;
const DAY = 86_400_000n;
const PAGE_RECORDS = 50;
const FIRST_EPOCH = 1;
/**
 * Start of the manual clock: the next UTC midnight of the real clock. Never in the real past: Redis
 * drops a key whose absolute expiry (PXAT, from the store clock) has passed on the server's clock.
 */
function manualStart(): bigint {
  const now = BigInt(Date.now());
  return (now / DAY + 1n) * DAY;
}

const quietLog: BusLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };
const allowAll: HistoryAuthorizer = { canReadHistory: async () => true };

/** Lifetimes of the plan in store ms (printed, and handed to the stores). */
export function lifetimesOf(
  plan: SoakPlan,
): StoreLifetimes & { readonly ephemeralTtlSeconds: number; readonly recoveryGraceMs: bigint; readonly loopIntervalMs: bigint; readonly marginMs: bigint } {
  const day = DAY;
  const hour = day / 24n;
  const atLeast = (v: bigint, min: bigint): bigint => (v < min ? min : v);
  return {
    gc: { entryRetentionMs: BigInt(plan.retentionDays) * day, dispatchDedupeMs: BigInt(plan.dedupeDays) * day },
    commitAuxTtlMs: atLeast(2n * hour, 1000n),
    physicalGraceMs: atLeast(hour, 1000n),
    // the production default of the Memory and Cassandra stores (ADR-0022 §6)
    releasedProofTtlMs: day,
    ephemeralTtlSeconds: Math.round((plan.ephemeralDays * Number(DAY)) / 1000),
    recoveryGraceMs: hour / 60n,
    loopIntervalMs: BigInt(LOOP_EVERY_STEPS) * hour,
    // the manual clock is exact
    marginMs: 0n,
  };
}

export function describeLifetimes(plan: SoakPlan): Record<string, string> {
  const l = lifetimesOf(plan);
  const days = (ms: bigint): string => `${(Number(ms) / Number(DAY)).toFixed(3)} days`;
  const ttl: Record<BackendKind, string> = {
    memory:
      'none: expired rows stay in the maps until the store sweeps them (time-throttled, from appendBatch/applyPage); the census counts the maps as they are',
    redis:
      'not accelerated (Redis expires keys by its own clock). The census counts a key until its own absolute expiry ' +
      '(PEXPIRETIME, written from the store clock) passes on the simulated clock: what a Redis server living at the simulated time would hold',
    scylla:
      'not accelerated (Cassandra TTLs run on server time). The census counts a TTL row until the expiry the store derived its TTL from ' +
      'passes on the simulated clock (entry: its expiresAt; dispatch index: createdAt + dedupe; record: createdAt + ephemeral TTL; ' +
      'commit facts: created_at + aux lifetime; released bucket proof: the release TTL after the census first saw it released); rows without TTL always',
  };
  return {
    'time model': `a ManualClock moved by the soak (1 simulated day = ${DAY} ms of the stores' clock), hourly steps`,
    'server TTLs': ttl[plan.backend],
    'why not scaled lifetimes':
      'mailbox entries expire at end of their UTC creation day + retention (store-core DAY_MS, a constant), ' +
      'so shrinking the retention setting cannot shrink a day',
    'mailbox entry retention': days(l.gc.entryRetentionMs),
    'dispatch dedupe window': days(l.gc.dispatchDedupeMs),
    'commit aux lifetime': `${days(l.commitAuxTtlMs)} (production 2 h)`,
    'ephemeral ttl': `${l.ephemeralTtlSeconds} s`,
    'loop interval': `${l.loopIntervalMs} ms (${LOOP_EVERY_STEPS} h: recovery, housekeeping; router and shard apply run every hour)`,
  };
}

const hex = (rand: () => number, bytes: number): string => {
  let s = '';
  for (let i = 0; i < bytes; i++)
    s += Math.floor(rand() * 256)
      .toString(16)
      .padStart(2, '0');
  return s;
};

/**
 * One backend's soak: the writer's send path (MessageSender → DurableMessageCommitter → outbox),
 * its recovery runner and housekeeping round on their schedule, the mailbox's router and shard
 * worker fed page by page from in-process ordered logs, device syncs through MailboxReader, and the
 * checks of checker.ts at the end of every simulated day and at the end.
 */
/** Opens one backend for a soak: the stores on `clock`, the census able to look up a dispatch's created_at. */
export type OpenBackend = (clock: Clock, life: StoreLifetimes, dispatchCreatedAt: (dispatchId: string) => bigint | undefined) => Promise<SoakBackend>;

export async function runSoak(plan: SoakPlan, open: OpenBackend, progress: (line: string) => void): Promise<SoakResult> {
  const started = Date.now();
  const rand = prng(plan.seed);
  const life = lifetimesOf(plan);
  const manual = new ManualClock(manualStart());
  const clock: Clock = manual;
  const dayMs = DAY;
  const stepMs = dayMs / BigInt(STEPS_PER_DAY);
  const t0 = clock.nowMs();
  const advanceTo = async (t: bigint): Promise<void> => {
    if (t > manual.nowMs()) manual.set(t);
  };

  const dispatchLog = new OrderedLog('soak.dispatch', plan.shards);
  const dispatchProducer = new LogDispatchProducer(dispatchLog);
  const backend = await open(clock, life, (id) => dispatchProducer.createdAt.get(id));
  const violations: string[] = [];
  const health = new LoopHealth(3);
  try {
    const metrics = new WriterMetrics();
    const messagesLog = new OrderedLog('soak.messages', 4);
    const publisher = new LogOutboxPublisher(messagesLog);
    const committer = new DurableMessageCommitter(backend.messages, publisher);
    // the writer's membership directory in-process (what memory mode's coordination keeps), whatever the store
    const membership = memoryCoordination('soak').membership;
    const hlc = new HybridLogicalClock(() => clock.nowMs());
    const ids = new MessageIdSource(hlc, 1);
    let lastIssued: string | null = null;
    const sender = new MessageSender({
      membership,
      committer,
      issueId: () => {
        const id = ids.next();
        lastIssued = id.messageId;
        return id;
      },
      maxFanout: 1000,
      metrics,
      replayOf: (request) => replayAnswer(backend.messages, committer, request),
    });
    const runner = new RecoveryRunner(backend.messages, committer, { graceMs: life.recoveryGraceMs, maxItems: 500, clock });
    const mailboxMetrics = new MailboxMetrics();
    /** After the retention decrease: the gc of the second set of stores (both sets run, calls alternate). */
    let shorter: typeof life.gc | null = null;
    let shorterOnly = false;
    let alternate = 0;
    const storeOf = (shard: number, epoch: number) =>
      shorter !== null && (shorterOnly || alternate++ % 2 === 1) ? backend.storeFor(shard, epoch, shorter) : backend.storeFor(shard, epoch);
    /** The retention the checks judge by: the shorter one once it runs (an entry may expire by it). */
    const retentionMs = (): bigint => shorter?.entryRetentionMs ?? life.gc.entryRetentionMs;
    const retentionDays = (): number => (shorter !== null ? plan.retentionDecrease!.toDays : plan.retentionDays);
    /** The mailbox processes of one epoch: shard worker and reader over that epoch's stores, their board. */
    const startMailbox = async (
      epoch: number,
      since = epoch === FIRST_EPOCH ? undefined : clock.nowMs(),
    ): Promise<{ epoch: number; since: bigint | undefined; worker: ShardWorker; reader: MailboxReader }> => {
      const board = new FrontierBoard();
      const worker = new ShardWorker({ storeFor: (s) => storeOf(s, epoch), board, metrics: mailboxMetrics, log: quietLog, now: () => Number(clock.nowMs()) });
      await worker.onAssigned(Array.from({ length: plan.shards }, (_, i) => i));
      const reader = new MailboxReader({ storeFor: (s) => storeOf(s, epoch), shardCount: plan.shards, epoch, board });
      return { epoch, since, worker, reader };
    };
    let mailbox = await startMailbox(FIRST_EPOCH);
    /**
     * After Redis lost the mailbox's last writes: the mailbox restarts (new store instances) and its
     * shard check resets every shard whose frontier is behind the group's position to frontier + 1
     * (or the epoch's start when the frontier vanished).
     */
    const restartAfterLoss = async (): Promise<number> => {
      mailbox.worker.onRevoked('soak: mailbox restart after lost writes');
      await backend.restartMailboxStores();
      mailbox = await startMailbox(mailbox.epoch, mailbox.since);
      let reset = 0;
      for (let shard = 0; shard < plan.shards; shard++) {
        const { offset } = await (await backend.storeFor(shard, mailbox.epoch)).frontier();
        const to = offset === null ? epochStart[shard]! : offset + 1n;
        if (to < dispatchLog.position(shard)) {
          dispatchLog.rewind(shard, to);
          reset++;
        }
      }
      return reset;
    };
    const router = new MessageRouter({ producer: dispatchProducer, shardCount: plan.shards, metrics: mailboxMetrics, log: quietLog });
    /**
     * The runbook's epoch bump: every mailbox stops (the old epoch's worker is revoked), the new
     * epoch's shard group reads the dispatch log on from the old group's positions into new stores
     * and frontiers. Devices keep their cursors: the new epoch's stores answer an old epoch's cursor
     * with EPOCH_MISMATCH (410, a resync like CURSOR_EXPIRED), then they sync from the new epoch's
     * start (sabotage 'epoch-bump': they jump there at once, without the resync).
     */
    /** Where each shard's group started in the current epoch (a vanished frontier resets to it). */
    let epochStart = Array.from({ length: plan.shards }, () => 0n);
    const bumpEpoch = async (): Promise<void> => {
      mailbox.worker.onRevoked('soak: mailbox epoch bump');
      epochStart = epochStart.map((_, shard) => dispatchLog.position(shard));
      mailbox = await startMailbox(mailbox.epoch + 1);
      if (plan.sabotage === 'epoch-bump') for (const d of devices) if (d.cursor !== null) d.cursor = epochStartSeq(mailbox.epoch);
    };

    // population
    const tenantId = hex(rand, 16) as Id128;
    const users = Array.from({ length: plan.users }, () => hex(rand, 16) as Id128);
    const conversations = Array.from({ length: plan.conversations }, () => hex(rand, 16) as Id128);
    for (const c of conversations) {
      const size = 3 + Math.floor(rand() * 6);
      const members = new Set<Id128>();
      while (members.size < size) members.add(users[Math.floor(rand() * users.length)]!);
      await membership.add(tenantId, c, [...members], 1000);
    }
    const policies: Array<[Policy, number | null]> = [
      ['daily', 1],
      ['every-2-days', 2],
      ['weekly', 7],
      ['past-retention', plan.retentionDays + 2],
      ['never', null],
    ];
    const devices: Device[] = [];
    users.forEach((u, i) => {
      const [policy, periodDays] = policies[i % policies.length]!;
      devices.push({ view: new DeviceView(`device ${u.slice(0, 8)}/${policy}`, u), policy, periodDays, cursor: null });
      if (i % 4 === 0) devices.push({ view: new DeviceView(`device ${u.slice(0, 8)}/daily-2nd`, u), policy: 'daily', periodDays: 1, cursor: null });
    });

    // what was ACKed
    const acked = new Map<string, AckedMessage>();
    const byConversation = new Map<string, AckedMessage[]>();
    const byUser = new Map<string, AckedMessage[]>();
    const pending = new Set<string>();
    const retries: Array<{ request: SendRequest; ephemeralMs: bigint | null }> = [];
    let counters = { acked: 0, replays: 0, publishFailures: 0, recovered: 0, syncs: 0, cursorExpired: 0, epochMismatch: 0 };
    const totals: Record<string, number> = {
      acked: 0,
      replays: 0,
      publishFailures: 0,
      recovered: 0,
      syncs: 0,
      cursorExpired: 0,
      epochMismatch: 0,
      routerRedeliveries: 0,
      shardRedeliveries: 0,
      housekeepingReclaimed: 0,
      membershipChanges: 0,
    };

    const ack = (outcome: Awaited<ReturnType<MessageSender['send']>>, ephemeralMs: bigint | null): void => {
      const first = acked.get(outcome.messageId);
      if (first) {
        violations.push(...checkReplay(first, outcome));
        return;
      }
      const m: AckedMessage = {
        messageId: outcome.messageId,
        conversationId: outcome.intent.request.conversationId,
        seq: outcome.seq,
        createdAt: outcome.createdAt,
        recipients: outcome.intent.recipients,
        ephemeralMs,
      };
      acked.set(m.messageId, m);
      byConversation.set(m.conversationId, [...(byConversation.get(m.conversationId) ?? []), m]);
      for (const u of m.recipients) {
        let list = byUser.get(u);
        if (!list) byUser.set(u, (list = []));
        list.push(m);
      }
      counters.acked++;
    };

    const send = async (request: SendRequest, ephemeralMs: bigint | null, retryNow: boolean): Promise<void> => {
      try {
        const outcome = await sender.send(request);
        if (outcome.replay) counters.replays++;
        const first = acked.get(outcome.messageId);
        ack(outcome, ephemeralMs);
        if (retryNow) {
          const again = await sender.send(request);
          counters.replays++;
          violations.push(...checkReplay(first ?? acked.get(outcome.messageId)!, again));
        }
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code === 'FORBIDDEN') return; // the sender left the conversation meanwhile: refused, nothing ACKed
        if (lastIssued) pending.add(lastIssued);
        counters.publishFailures++;
        retries.push({ request, ephemeralMs });
      }
    };

    const drain = async (): Promise<void> => {
      // router, then shards, until both logs are empty (a redelivered router page adds duplicates)
      for (let round = 0; round < 20 && (messagesLog.backlog() > 0 || dispatchLog.backlog() > 0); round++) {
        const r = await drainLog(messagesLog, router, PAGE_RECORDS, () => rand() < 0.03);
        totals['routerRedeliveries']! += r.redelivered;
        health.ran('router', r.failures.size > 0 ? [...r.failures.values()][0] : null);
        const s = await drainLog(dispatchLog, mailbox.worker, PAGE_RECORDS, () => rand() < 0.03);
        totals['shardRedeliveries']! += s.redelivered;
        health.ran('shard-apply', s.failures.size > 0 ? [...s.failures.values()][0] : null);
        const now = clock.nowMs();
        for (let shard = 0; shard < plan.shards; shard++) {
          if (s.failures.has(shard)) stalledSince.set(shard, stalledSince.get(shard) ?? now);
          else stalledSince.delete(shard);
        }
        if (r.failures.size > 0 || s.failures.size > 0) break;
      }
    };
    const stalledSince = new Map<number, bigint>();

    // the writer's two loops run side by side, as their PeriodicTasks do
    const loops = async (): Promise<void> => {
      const recovery = async (): Promise<void> => {
        try {
          const r = await runner.runOnce();
          counters.recovered += r.completed;
          health.ran('recovery', r.failed > 0 ? r.failures[0]!.error : null);
        } catch (err) {
          health.ran('recovery', err);
        }
      };
      const housekeeping = async (): Promise<void> => {
        if (!backend.messages.capabilities.needsHousekeeping) return;
        try {
          const h = await housekeepingRound(backend.messages, { batch: 2000, clock }, metrics, quietLog);
          totals['housekeepingReclaimed']! += h.commitAux.reclaimed + h.expiredHistory.reclaimed;
          health.ran('housekeeping', null);
        } catch (err) {
          health.ran('housekeeping', err);
        }
      };
      await Promise.all([recovery(), housekeeping()]);
    };

    const syncDevice = async (d: Device): Promise<void> => {
      const now = clock.nowMs();
      const owed = byUser.get(d.view.userId) ?? [];
      const ids: string[] = [];
      const seqs: bigint[] = [];
      for (let guard = 0; guard < 10_000; guard++) {
        let page;
        try {
          page = await mailbox.reader.sync({
            tenantId,
            actingUser: d.view.userId as Id128,
            userId: d.view.userId as Id128,
            after: d.cursor,
            limit: 200,
            maxBytes: 1 << 20,
            waitMs: 0,
          });
        } catch (err) {
          // 410 for the device (service-kit RESYNC_CODES): CURSOR_EXPIRED, or EPOCH_MISMATCH for a
          // cursor of the epoch before a bump; either way it drops its state and resyncs
          if (!(err instanceof CursorExpiredError) && !(err instanceof EpochMismatchError)) throw err;
          if (plan.sabotage === 'retention-decrease' && shorter !== null && err instanceof CursorExpiredError) {
            d.cursor = err.boundary;
            continue;
          }
          if (ids.length > 0)
            d.view.record({ kind: 'pages', messageIds: ids.splice(0), seqs: seqs.splice(0) }, now, retentionMs(), marginFresh, owed, mailbox.since);
          d.view.record({ kind: 'cursor-expired' }, now, retentionMs(), marginFresh, owed, mailbox.since);
          if (err instanceof EpochMismatchError) counters.epochMismatch++;
          else counters.cursorExpired++;
          if (err instanceof CursorExpiredError && d.periodDays !== null && d.periodDays + 1 < retentionDays()) {
            violations.push(`${d.view.name}: CURSOR_EXPIRED although it syncs every ${d.periodDays} day(s) and entries live ${retentionDays()} days`);
          }
          d.cursor = null;
          continue;
        }
        for (const e of page.entries) {
          delivered++;
          if (plan.sabotage === 'drop-entry' && delivered % 400 === 0) continue;
          seqs.push(e.mailboxSeq);
          ids.push(e.events[0]!.eventId);
          if (plan.sabotage === 'double-entry' && delivered % 400 === 0) ids.push(e.events[0]!.eventId);
        }
        d.cursor = page.nextAfter;
        if (!page.hasMore) break;
      }
      const result: SyncResult = { kind: 'pages', messageIds: ids, seqs };
      d.view.record(result, now, retentionMs(), marginFresh, owed, mailbox.since);
      counters.syncs++;
      violations.push(...d.view.expectations(owed, (id) => acked.has(id) || pending.has(id)));
    };
    const marginFresh = dayMs / 2n + life.marginMs;
    let delivered = 0;

    const checkHistories = async (): Promise<void> => {
      const now = clock.nowMs();
      for (const c of conversations) {
        const rows: { seq: bigint; messageId: string }[] = [];
        let anchor: bigint | null = null;
        for (let guard = 0; guard < 10_000; guard++) {
          const page = await backend.messages.historyPage(allowAll, { tenantId, userId: users[0]! }, c, {
            direction: 'newer',
            anchor,
            maxItems: 1000,
            maxBytes: 1 << 22,
          });
          for (const it of page.items) rows.push({ seq: it.record.seq, messageId: it.record.messageId });
          if (!page.hasMore || page.nextAnchor === null) break;
          anchor = page.nextAnchor;
        }
        violations.push(...checkHistory(c, rows, byConversation.get(c) ?? [], pending, now, life.marginMs, backend.messages.capabilities.injectableClock));
      }
    };

    const phaseMs: Record<string, number> = { sends: 0, loops: 0, drain: 0, history: 0, syncs: 0, census: 0 };
    const timed = async <T>(phase: string, f: () => Promise<T>): Promise<T> => {
      const t = Date.now();
      try {
        return await f();
      } finally {
        phaseMs[phase] = (phaseMs[phase] ?? 0) + Date.now() - t;
      }
    };
    const samples: StorageSample[] = [];
    const daily: DayLine[] = [];
    samples.push({ day: 0, counts: await backend.census(clock.nowMs()) });
    const sendsPerStep = plan.sendsPerDay / STEPS_PER_DAY;
    let carry = 0;
    let sent = 0;
    for (let day = 1; day <= plan.days; day++) {
      const dayStarted = Date.now();
      const phasesBefore = { ...phaseMs };
      const before = violations.length;
      counters = { acked: 0, replays: 0, publishFailures: 0, recovered: 0, syncs: 0, cursorExpired: 0, epochMismatch: 0 };
      for (let step = 0; step < STEPS_PER_DAY; step++) {
        await advanceTo(t0 + BigInt(day - 1) * dayMs + BigInt(step) * stepMs);
        if (day === plan.lostWritesDay && step === STEPS_PER_DAY - 1 && backend.lostWrites) {
          progress(
            `${plan.backend} day ${String(day).padStart(2)}: 11 p.m. snapshot of the mailbox's ${await backend.lostWrites.snapshot()} keys ` +
              '(the writes after it will be lost)',
          );
        }
        if (day === plan.retentionDecrease?.fromDay && step === STEPS_PER_DAY / 4) {
          shorter = { ...life.gc, entryRetentionMs: BigInt(plan.retentionDecrease.toDays) * dayMs };
          progress(
            `${plan.backend} day ${String(day).padStart(2)}: retention decrease at 6 a.m.: ` +
              `stores with ${plan.retentionDecrease.toDays} days run beside those with ${plan.retentionDays}`,
          );
        }
        if (plan.retentionDecrease && day === plan.retentionDecrease.fromDay + 1 && step === STEPS_PER_DAY / 4) {
          shorterOnly = true;
          progress(
            `${plan.backend} day ${String(day).padStart(2)}: rolling restart done at 6 a.m.: only the stores with ${plan.retentionDecrease.toDays} days run`,
          );
        }
        if (day === plan.epochBumpDay && step === STEPS_PER_DAY / 2) {
          await bumpEpoch();
          progress(`${plan.backend} day ${String(day).padStart(2)}: mailbox epoch bump at noon, now epoch ${mailbox.epoch}`);
        }
        // clients retry what failed in the previous step (same client id, within the aux lifetime):
        // half before the loops run, half after the recovery loop had its chance to finish the commit
        const due = retries.splice(0);
        for (const r of due.filter((_, i) => i % 2 === 0)) await send(r.request, r.ephemeralMs, false);
        if (step % LOOP_EVERY_STEPS === 0) await timed('loops', loops);
        for (const r of due.filter((_, i) => i % 2 === 1)) await send(r.request, r.ephemeralMs, false);
        const sendStarted = Date.now();
        carry += sendsPerStep;
        const n = Math.floor(carry);
        carry -= n;
        const batch: Promise<void>[] = [];
        for (let i = 0; i < n; i++) {
          const c = conversations[Math.floor(rand() * conversations.length)]!;
          const members = await membership.members(tenantId, c);
          if (members.length === 0) continue;
          const senderId = members[Math.floor(rand() * members.length)]!;
          const ephemeral = rand() < 0.15;
          const request: SendRequest = {
            tenantId,
            senderId,
            clientMessageId: hex(rand, 16) as Id128,
            conversationId: c,
            kind: 'normal',
            control: false,
            contentType: 'text/plain',
            body: Buffer.from(`soak ${++sent}`),
            retention: ephemeral ? { kind: 'ephemeral', ttlSeconds: life.ephemeralTtlSeconds } : { kind: 'default' },
          };
          if (rand() < 0.04) publisher.failNext(1);
          const retryNow = rand() < 0.1;
          // sends of one step run concurrently in groups of 8, as several clients do
          batch.push(send(request, ephemeral ? BigInt(life.ephemeralTtlSeconds) * 1000n : null, retryNow));
          if (batch.length >= 8) await Promise.all(batch.splice(0));
        }
        await Promise.all(batch);
        phaseMs['sends']! += Date.now() - sendStarted;
        await timed('drain', drain);
        for (let shard = 0; shard < plan.shards; shard++)
          violations.push(...checkStall(shard, stalledSince.get(shard) ?? null, clock.nowMs(), life.loopIntervalMs));
      }
      // membership changes: a few joins and leaves a day
      for (let k = 0; k < 3; k++) {
        const c = conversations[Math.floor(rand() * conversations.length)]!;
        const members = await membership.members(tenantId, c);
        if (rand() < 0.5 && members.length > 2) await membership.remove(tenantId, c, [members[Math.floor(rand() * members.length)]!]);
        else await membership.add(tenantId, c, [users[Math.floor(rand() * users.length)]!], 1000);
        totals['membershipChanges']!++;
      }
      // end of the day: everything ACKed reaches the mailboxes, then the devices due today sync
      await advanceTo(t0 + BigInt(day) * dayMs - stepMs / 2n);
      for (const r of retries.splice(0)) await send(r.request, r.ephemeralMs, false);
      await timed('loops', loops);
      await timed('drain', drain);
      if (messagesLog.backlog() > 0 || dispatchLog.backlog() > 0)
        violations.push(`day ${day}: pipeline not drained (messages ${messagesLog.backlog()}, dispatch ${dispatchLog.backlog()})`);
      await timed('history', checkHistories);
      await timed('syncs', async () => {
        for (const d of devices) if (d.periodDays !== null && day % d.periodDays === 0) await syncDevice(d);
      });
      if (day === plan.lostWritesDay && backend.lostWrites) {
        const keys = await backend.lostWrites.restore(plan.sabotage === 'lost-writes');
        const reset = await restartAfterLoss();
        progress(
          `${plan.backend} day ${String(day).padStart(2)}: after the syncs, Redis lost the mailbox's writes since 11 p.m. ` +
            `(${keys} keys of the snapshot put back); mailbox restarted, ${reset} shard position(s) reset to the frontier`,
        );
      }
      violations.push(...health.failures.splice(0));
      samples.push({ day, counts: await timed('census', () => backend.census(clock.nowMs())) });
      for (const k of Object.keys(counters) as (keyof typeof counters)[]) totals[k]! += counters[k];
      const line: DayLine = { day, ...counters, violations: violations.length - before, wallMs: Date.now() - dayStarted };
      daily.push(line);
      progress(
        `${plan.backend} day ${String(day).padStart(2)}: acked ${line.acked} replays ${line.replays} publish-fail ${line.publishFailures} ` +
          `recovered ${line.recovered} syncs ${line.syncs} cursor-expired ${line.cursorExpired} epoch-mismatch ${line.epochMismatch} ` +
          `violations ${line.violations} (${line.wallMs} ms: ${Object.entries(phaseMs)
            .map(([k, v]) => `${k} ${v - (phasesBefore[k] ?? 0)}`)
            .join(', ')})`,
      );
    }
    // the end: devices that never synced do a first sync (owed: everything still retained)
    for (const d of devices) if (d.policy === 'never' || d.periodDays === null) await syncDevice(d);
    await checkHistories();
    violations.push(...health.failures.splice(0));
    const steadyFrom = plan.dedupeDays + 2;
    violations.push(...checkBounded(samples, steadyFrom, (name) => growsByDesign(plan.backend, name)));
    const hk = health.totals();
    for (const [loop, n] of Object.entries(hk)) totals[`${loop}Failures`] = n;
    totals['published'] = publisher.published;
    for (const [k, v] of Object.entries(phaseMs)) totals[`wallMs.${k}`] = v;
    return { backend: plan.backend, plan, lifetimes: describeLifetimes(plan), samples, daily, violations, wallSeconds: (Date.now() - started) / 1000, totals };
  } finally {
    await backend.close();
  }
}
