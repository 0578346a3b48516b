import type { BusLogger, ConsumedPage, PageHandler, PoisonHandler } from '@qim/bus';
import type { DispatchPage, DispatchPageRecord, MailboxStore, PageReport } from '@qim/store-core';
import { FrontierGapError, InvalidInputError, StoreError, decodeDispatchRecord } from '@qim/store-core';
import { ApplyBound, ApplyTimeoutError } from './apply-bound';
import type { FrontierBoard } from './frontier-board';
import { userKeyOf } from './frontier-board';
import type { MailboxMetrics } from './mailbox-metrics';
import { PoisonReporter } from './poison-reporter';
import type { ShardRefusal } from './shard-guard';
import { ShardRefusedError, judgeShard } from './shard-guard';

/** A shard that met a frontier gap: it retries the same page with backoff and never skips the hole. */
export interface ShardStall {
  /** ms since epoch when the stall began. */
  readonly since: number;
  /** First offset of the refused page. */
  readonly pageFromOffset: bigint;
  readonly reason: string;
  readonly attempts: number;
}

/** What this process knows of one shard's apply loop. */
export interface ShardState {
  readonly stall: ShardStall | null;
  /** The last failure of a page (any error), cleared by the next applied page. */
  readonly lastError: string | null;
  readonly pagesApplied: number;
  /** ms since epoch of the last applied page. */
  readonly lastAppliedAt: number | null;
  /** The shard does not run: its store and Kafka disagree (see `judgeShard`); cleared only by a new assignment. */
  readonly refusal: (ShardRefusal & { readonly since: number }) | null;
}

/** The partition's offsets as Kafka reports them now (for `judgeShard`). */
export interface PartitionPositions {
  readonly low: bigint;
  readonly end: bigint;
  readonly committed: bigint | null;
}

/** What the worker compares the store's frontier with before it runs a shard. */
export interface ShardGuardOptions {
  readonly epoch: number;
  readonly pageRecords: number;
  readonly positions: (shard: number) => Promise<PartitionPositions>;
}

export interface ShardWorkerOptions {
  /** The store bound to `ShardEpoch{shard, epoch}`. */
  readonly storeFor: (shard: number) => Promise<MailboxStore>;
  readonly board: FrontierBoard;
  readonly metrics: MailboxMetrics;
  readonly log: BusLogger;
  /** Dead-letter seam for undecodable or invalid dispatch records (default: count and log only). */
  readonly onPoison?: PoisonHandler;
  /**
   * The start-up check (issue 11, items 4 and 11): at each assignment, and before a page wholly at or
   * below the frontier, the store's frontier is compared with the partition's offsets; a shard that
   * disagrees is refused, never skipped. Absent: no Kafka (in-process tests), every shard runs.
   */
  readonly guard?: ShardGuardOptions;
  /**
   * Longest a page's `applyPage` may run (ms, default 60 000). Past it the page fails with
   * `UnavailableError` (metric `qim_shard_page_failures_total{code="APPLY_TIMEOUT"}`, an error log,
   * the shard's `lastError`) and the consumer retries it with backoff; the retry is refused while the
   * late apply still runs, so a shard never has two applies at once.
   */
  readonly applyTimeoutMs?: number;
  readonly now?: () => number;
}

const EMPTY_STATE: ShardState = Object.freeze({ stall: null, lastError: null, pagesApplied: 0, lastAppliedAt: null, refusal: null });

/**
 * The dispatch-topic `PageHandler` (ADR-0022 §3): each partition is a shard. Per page: decode every
 * record (one that cannot be decoded, or belongs to another shard, goes to the poison seam and its
 * offset stays in the page carrying nothing) → `store.applyPage` (entries, then the frontier) → the
 * board learns the new frontier and wakes the waiting syncs. Resolving lets the consumer commit
 * `toOffset + 1`, so the Kafka offset never passes the frontier. A `FrontierGapError` marks the shard
 * stalled (metric, status, readiness detail) and is rethrown: the consumer retries the page with
 * backoff.
 *
 * A store that does not answer (issue 28, item 5): every store call is bounded (the Redis command
 * timeout, the CQL read timeout) and `applyPage` as a whole by `applyTimeoutMs`; the page then fails
 * visibly (`qim_shard_page_failures_total{shard,code}`, an error log, the shard's `lastError` in the
 * status route) and is retried with backoff. The worker keeps the partition: every mailbox process
 * shares the same store, so handing the shard to another one would only move the outage and
 * rebalance the healthy shards. Each failed page is counted with its error code.
 */
export class ShardWorker implements PageHandler {
  private assigned: readonly number[] = [];
  private readonly states = new Map<number, ShardState>();
  private readonly poison: PoisonReporter;
  private readonly now: () => number;
  /** Per assigned shard, its check (resolves once the shard may run; a failed check is run again). */
  private readonly checks = new Map<number, Promise<void>>();
  /** Shards whose check of the current assignment has passed. */
  private readonly passed = new Set<number>();
  /** The frontier this process last read or wrote per shard. */
  private readonly frontiers = new Map<number, bigint | null>();
  private readonly applyBound: ApplyBound;

  constructor(private readonly opts: ShardWorkerOptions) {
    this.poison = new PoisonReporter('shard', opts.metrics, opts.log, opts.onPoison);
    this.now = opts.now ?? Date.now;
    this.applyBound = new ApplyBound(opts.applyTimeoutMs ?? 60_000, opts.log);
  }

  async handlePage(page: ConsumedPage): Promise<void> {
    const shard = page.partition;
    const started = this.now();
    await this.checked(shard);
    const known = this.frontiers.get(shard);
    // A page wholly at or below the frontier is treated as applied by the store: make sure it is a
    // re-read of this partition, not a recreated topic's records.
    if (this.opts.guard && known !== undefined && known !== null && page.toOffset <= known) await this.check(shard);
    const store = await this.opts.storeFor(shard);
    const dispatchPage = await this.decode(page, shard);
    const handing = this.now();
    for (const r of dispatchPage.records) {
      this.opts.metrics.deliveryStageSeconds.observe({ stage: 'applying' }, Math.max(0, (handing - Number(r.record.createdAt)) / 1000));
    }
    let report: PageReport;
    try {
      report = await this.applyBound.run(shard, page, () => store.applyPage(dispatchPage));
    } catch (err) {
      this.failed(shard, page, err);
      throw err;
    }
    this.applied(shard, dispatchPage, report, started);
  }

  /** Waits for the shard's check; a refused shard throws `ShardRefusedError`, a failed check runs again. */
  private async checked(shard: number): Promise<void> {
    const refusal = this.stateOf(shard).refusal;
    if (refusal) throw new ShardRefusedError(refusal);
    let pending = this.checks.get(shard);
    if (!pending) {
      pending = this.check(shard);
      this.checks.set(shard, pending);
    }
    try {
      await pending;
    } catch (err) {
      if (this.checks.get(shard) === pending) this.checks.delete(shard);
      throw err;
    }
  }

  /** Reads the frontier (board, metric) and, with a guard, judges it against Kafka's offsets. */
  private async check(shard: number): Promise<void> {
    const { offset } = await (await this.opts.storeFor(shard)).frontier();
    this.frontiers.set(shard, offset);
    this.opts.board.learn(shard, offset);
    this.opts.metrics.shardFrontier.set({ shard: String(shard) }, offset === null ? -1 : Number(offset));
    const guard = this.opts.guard;
    const refusal = guard
      ? judgeShard({ shard, epoch: guard.epoch, frontier: offset, pageRecords: guard.pageRecords, ...(await guard.positions(shard)) })
      : null;
    if (!refusal) {
      this.passed.add(shard);
      return;
    }
    this.passed.delete(shard);
    const prev = this.stateOf(shard);
    if (!prev.refusal) {
      this.opts.metrics.shardRefused.set({ shard: String(shard) }, 1);
      this.opts.log.error({ shard, kind: refusal.kind, resolve: refusal.resolve }, `shard refused: ${refusal.reason}; to resolve: ${refusal.resolve}`);
    }
    const since = prev.refusal?.since ?? this.now();
    this.states.set(shard, { ...prev, refusal: { ...refusal, since }, lastError: refusal.reason });
    throw new ShardRefusedError(refusal);
  }

  private async decode(page: ConsumedPage, shard: number): Promise<DispatchPage> {
    const records: DispatchPageRecord[] = [];
    for (const r of page.records) {
      try {
        const record = decodeDispatchRecord(r.value);
        if (record.shard !== shard) throw new InvalidInputError(`dispatch ${record.dispatchId} is for shard ${record.shard}, found in partition ${shard}`);
        records.push({ offset: r.offset, record });
      } catch (err) {
        await this.poison.report(r, err);
      }
    }
    return { fromOffset: page.fromOffset, toOffset: page.toOffset, records };
  }

  private applied(shard: number, page: DispatchPage, report: PageReport, started: number): void {
    const label = String(shard);
    const m = this.opts.metrics;
    const byOffset = new Map(page.records.map((r) => [r.offset, r.record]));
    const users = new Set<string>();
    const now = this.now();
    for (const o of report.outcomes) {
      m.dispatchOutcomes.inc({ shard: label, outcome: o.outcome });
      const record = byOffset.get(o.offset);
      if (o.outcome === 'conflict') {
        this.opts.log.error(
          { shard, dispatchId: o.dispatchId, offset: o.offset.toString(), canonicalOffset: o.canonicalOffset.toString() },
          'dispatch conflict: the same dispatch id arrived with other content; nothing written for this sight',
        );
      }
      if (o.outcome !== 'applied' || !record) continue;
      for (const u of record.recipients) users.add(userKeyOf(record.tenantId, u));
      m.dispatchLagSeconds.observe({ shard: label }, Math.max(0, (now - Number(record.createdAt)) / 1000));
    }
    if (report.entriesWritten > 0) m.mailboxEntries.inc({ shard: label, state: 'written' }, report.entriesWritten);
    if (report.entriesExpired > 0) m.mailboxEntries.inc({ shard: label, state: 'expired' }, report.entriesExpired);
    m.pageSeconds.observe({ shard: label }, (now - started) / 1000);
    m.shardFrontier.set({ shard: label }, Number(report.frontier));
    this.frontiers.set(shard, report.frontier);
    // A frontier beyond this page was moved by another applier: which users it served is unknown here.
    this.opts.board.advance(shard, report.frontier, report.frontier > page.toOffset ? null : users, page.fromOffset);

    const prev = this.stateOf(shard);
    if (prev.stall) {
      m.shardStalled.set({ shard: label }, 0);
      this.opts.log.info({ shard, frontier: report.frontier.toString(), stalledMs: now - prev.stall.since }, 'shard resumed after a frontier gap');
    }
    this.states.set(shard, { stall: null, lastError: null, pagesApplied: prev.pagesApplied + 1, lastAppliedAt: now, refusal: prev.refusal });
  }

  private failed(shard: number, page: ConsumedPage, err: unknown): void {
    const code = err instanceof ApplyTimeoutError ? 'APPLY_TIMEOUT' : err instanceof StoreError ? err.code : 'INTERNAL';
    this.opts.metrics.shardPageFailures.inc({ shard: String(shard), code });
    const prev = this.stateOf(shard);
    const reason = err instanceof Error ? err.message : String(err);
    let stall = prev.stall;
    if (err instanceof FrontierGapError) {
      if (!stall) {
        this.opts.metrics.shardStalls.inc({ shard: String(shard) });
        this.opts.metrics.shardStalled.set({ shard: String(shard) }, 1);
        this.opts.log.error({ shard, fromOffset: page.fromOffset.toString() }, `shard stalled: ${reason}`);
      }
      stall = { since: stall?.since ?? this.now(), pageFromOffset: page.fromOffset, reason, attempts: (stall?.attempts ?? 0) + 1 };
    }
    this.states.set(shard, { ...prev, stall, lastError: reason });
  }

  /**
   * Partitions assigned at the last rebalance: the board owns exactly these; each is checked afresh
   * (frontier read ahead, compared with Kafka's offsets); a refusal of an earlier assignment is
   * forgotten and judged again. Resolves when every check has ended (refused or not).
   */
  async onAssigned(partitions: readonly number[]): Promise<void> {
    this.assigned = partitions;
    this.opts.board.own(partitions);
    this.checks.clear();
    this.passed.clear();
    this.frontiers.clear();
    for (const shard of [...this.states.keys()]) {
      if (this.stateOf(shard).refusal) this.opts.metrics.shardRefused.set({ shard: String(shard) }, 0);
      if (!partitions.includes(shard)) this.states.delete(shard);
      else this.states.set(shard, { ...this.stateOf(shard), refusal: null });
    }
    const pending = partitions.map((shard) => {
      const p = this.check(shard);
      this.checks.set(shard, p);
      return p;
    });
    const results = await Promise.allSettled(pending);
    results.forEach((r, i) => {
      if (r.status === 'rejected' && !(r.reason instanceof ShardRefusedError)) {
        this.opts.log.warn({ shard: partitions[i], err: r.reason }, 'shard check failed; it runs again before the first page');
      }
    });
  }

  /**
   * The consumer crashed, stopped or is rejoining its group: this process no longer applies any shard,
   * so the board owns none (syncs read the store, waiters re-read) until `onAssigned` gives them back.
   * The shards' states stay for the status route; each is checked afresh at the next assignment.
   */
  onRevoked(reason: string): void {
    if (this.assigned.length > 0)
      this.opts.log.warn({ shards: this.assigned, reason }, 'shard consumer lost its partitions; syncs of those shards read the store until it joins again');
    this.assigned = [];
    this.opts.board.own([]);
    this.passed.clear();
  }

  assignment(): readonly number[] {
    return this.assigned;
  }

  /** Whether the shard's check of the current assignment has ended: passed, or refused. */
  checkEnded(shard: number): boolean {
    return this.passed.has(shard) || this.stateOf(shard).refusal !== null;
  }

  stateOf(shard: number): ShardState {
    return this.states.get(shard) ?? EMPTY_STATE;
  }

  /**
   * The shards' part of readiness: never red. Readiness says whether this process can serve (its
   * store, Kafka and consumers have their own checks); a refused, stalled or not yet checked shard
   * is one shard's state, and a load balancer that drops a process for it would drop the sync
   * traffic of every healthy shard too. Such a shard shows here (for an operator presenting the
   * token), in `/v1/shards/N/status`, in `qim_shard_refused` / `qim_shard_stalled` and in the log.
   * In-memory only: no store read per probe.
   */
  async readiness(): Promise<{ ok: true; detail: object }> {
    const shards: Record<string, object> = {};
    const refused: number[] = [];
    const stalledShards: number[] = [];
    const unchecked: number[] = [];
    for (const shard of this.assigned) {
      const state = this.stateOf(shard);
      const stalled = state.stall ? { since: state.stall.since, pageFromOffset: state.stall.pageFromOffset.toString(), reason: state.stall.reason } : null;
      if (stalled) stalledShards.push(shard);
      if (state.refusal) {
        refused.push(shard);
        shards[String(shard)] = { refused: { kind: state.refusal.kind, reason: state.refusal.reason, resolve: state.refusal.resolve }, stalled };
      } else if (!this.passed.has(shard)) {
        unchecked.push(shard);
        shards[String(shard)] = { checked: false, stalled };
      } else {
        shards[String(shard)] = { frontier: this.frontiers.get(shard)?.toString() ?? null, stalled };
      }
    }
    return { ok: true, detail: { assigned: this.assigned, refused, stalled: stalledShards, unchecked, shards } };
  }
}
