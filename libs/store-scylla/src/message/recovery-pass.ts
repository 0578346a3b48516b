import { commitKeyString } from '@qim/store-core';
import type { CommitSnapshot } from '@qim/store-core';
import { toCqlBigint } from '../session/statements';
import { mapBounded } from './bounded';
import { auxDeadlineMs, commitKeyParams, loadCommitRow } from './commit-rows';
import type { StoredCommit, StoredRow } from './commit-rows';
import type { MessageContext } from './message-context';
import { ttlSecondsOf } from './message-context';
import { PROGRESS_EXTRA_TTL_MS, comparePositions, indexEntryOf, positionParams, progressOf, recoveryWindow, scanStart } from './recovery-window';
import type { IndexEntry, IndexPosition, RecoveryWindow } from './recovery-window';
import { RECOVERY_PROGRESS_SCOPE } from './tables/recovery-progress-table';
import { recoveryBucketOf } from './tables/recovery-table';

/** Rows per CQL page of the recovery index (the statement's LIMIT). */
export const RECOVERY_PAGE_ROWS = 1_000;
/** Most index rows one pass reads. */
export const RECOVERY_ROW_CAP = 50_000;
/** Most commit rows one pass reads (entries neither done nor younger than the cutoff). */
export const RECOVERY_READ_CAP = 2_000;
/** Commit reads in flight during a pass. */
const READ_CONCURRENCY = 16;
/**
 * An unfinished entry younger than the cutoff (by created_at) holds the progress only while it was
 * written less than this long ago: a commit still unfinished after that (a created_at far ahead, a
 * very long grace) is read and superseded like any other, so it can never pin the progress.
 */
export const YOUNG_PIN_MS = 30_000n;

/** What the pass makes of one index entry. */
type Verdict = 'pass' | 'supersede' | 'young' | 'full' | 'unread';

/**
 * One recovery pass over `commit_recovery_v2` (ADR-0030, docs/adr/0030-recovery-scan-by-position.md). Reads from the stored
 * progress (never below the window's first live position) in clustering order. Each entry is
 * - done (its commit reached COMMITTED) → passed without reading the commit;
 * - younger than the cutoff (by its created_at) and written less than `YOUNG_PIN_MS` ago → not
 *   read; the progress stops before it (its commit is presumably in flight);
 * - otherwise its commit is read: gone or COMMITTED → passed; RESERVED/RECORDED/OUTBOXED older than
 *   the cutoff → reported (up to `maxItems`) and superseded; a claim, or a commit younger than the
 *   cutoff but unfinished for `YOUNG_PIN_MS` → superseded when the progress is to move past it.
 * Superseding writes a successor entry at the pass's now, so the progress may move past the old one
 * while the commit stays findable, and a reported commit lines up behind those not reported yet: a
 * commit that keeps failing never pins the progress nor starves newer ones. The
 * progress moves over the longest prefix of passed and superseded entries below the window's
 * limit, and is stored once the successors are written. The pass ends at the end of the window, or
 * at the row cap, the read cap, or the first reportable commit beyond `maxItems`.
 */
export class RecoveryPass {
  private readonly window: RecoveryWindow;
  private readonly loaded = new Map<string, StoredRow | null>();
  private readonly found: CommitSnapshot[] = [];
  private readonly reported = new Set<string>();
  private readonly successors = new Map<string, { readonly entry: IndexEntry; readonly row: StoredRow }>();
  private start: IndexPosition | null = null;
  private cursor: IndexPosition | null = null;
  private advancing = true;
  private rows = 0;
  private reads = 0;

  constructor(
    private readonly ctx: MessageContext,
    private readonly cutoffMs: bigint,
    private readonly maxItems: number,
    private readonly nowMs: bigint = ctx.clock.nowMs(),
  ) {
    this.window = recoveryWindow(nowMs, ctx.auxTtlMs);
  }

  /** Runs the pass and returns the reported commits, oldest created_at first. */
  async run(): Promise<CommitSnapshot[]> {
    const progress = progressOf((await this.ctx.cql.run(this.ctx.progress.select, [RECOVERY_PROGRESS_SCOPE])).rows[0]);
    this.start = scanStart(progress, this.window);
    this.cursor = this.start;
    await this.walk(this.start);
    await this.writeSuccessors();
    await this.storeProgress();
    return [...this.found].sort((a, b) => {
      const d = a.intent.createdAt - b.intent.createdAt;
      if (d !== 0n) return d < 0n ? -1 : 1;
      const ka = commitKeyString(a.intent.key);
      const kb = commitKeyString(b.intent.key);
      return ka < kb ? -1 : ka > kb ? 1 : 0;
    });
  }

  /** Index rows read by this pass. */
  get rowsRead(): number {
    return this.rows;
  }

  /** Commit rows read by this pass. */
  get commitsRead(): number {
    return this.reads;
  }

  private async walk(start: IndexPosition): Promise<void> {
    for (let bucket = recoveryBucketOf(start.position); bucket <= this.window.lastBucket; bucket++) {
      let after: readonly unknown[] =
        bucket === recoveryBucketOf(start.position) ? positionParams(start) : [-1n, Buffer.alloc(0), Buffer.alloc(0), Buffer.alloc(0)];
      for (;;) {
        const rs = await this.ctx.cql.run(this.ctx.recovery.scan, [bucket, ...after, RECOVERY_PAGE_ROWS]);
        const page = rs.rows.map(indexEntryOf);
        if (!(await this.visitPage(page))) return;
        if (page.length < RECOVERY_PAGE_ROWS) break;
        after = positionParams((page[page.length - 1] as IndexEntry).at);
      }
    }
  }

  /** Judges a page in order; false when the pass must stop. */
  private async visitPage(page: readonly IndexEntry[]): Promise<boolean> {
    await this.loadCommits(page);
    for (const entry of page) {
      if (this.rows >= RECOVERY_ROW_CAP) return false;
      this.rows++;
      const verdict = this.judge(entry);
      if (verdict === 'full' || verdict === 'unread') return false;
      this.advance(entry, verdict);
    }
    return true;
  }

  /** An unfinished entry younger than the cutoff that may still hold the progress (its commit is presumably in flight). */
  private holdsProgress(e: IndexEntry): boolean {
    return e.createdAt >= this.cutoffMs && e.at.position >= this.nowMs - YOUNG_PIN_MS;
  }

  private needsRead(e: IndexEntry): boolean {
    return !e.done && !this.holdsProgress(e);
  }

  /** Reads (bounded concurrency, within the read cap) the commits of the page's entries that need one. */
  private async loadCommits(page: readonly IndexEntry[]): Promise<void> {
    const wanted = new Map<string, IndexEntry>();
    for (const e of page) {
      const id = commitKeyString(e.key);
      if (this.needsRead(e) && !this.loaded.has(id) && !wanted.has(id) && this.reads + wanted.size < RECOVERY_READ_CAP) wanted.set(id, e);
    }
    this.reads += wanted.size;
    await mapBounded([...wanted], READ_CONCURRENCY, async ([id, e]) => {
      this.loaded.set(id, await loadCommitRow(this.ctx, e.key));
    });
  }

  private judge(e: IndexEntry): Verdict {
    if (e.done) return 'pass';
    if (this.holdsProgress(e)) return 'young';
    const id = commitKeyString(e.key);
    if (!this.loaded.has(id)) return 'unread';
    const row = this.loaded.get(id) ?? null;
    if (row === null) return 'pass';
    if (row.kind === 'commit') {
      const { snapshot } = row;
      if (snapshot.state === 'COMMITTED') return 'pass';
      if (snapshot.intent.createdAt < this.cutoffMs) return this.report(id, e, row);
      if (e.at.position >= this.nowMs - YOUNG_PIN_MS) return 'young';
    }
    // a claim, or a commit younger than the cutoff but unfinished for long: not reported, passed by a successor
    if (this.advancing && e.at.position < this.window.limit) this.supersede(id, e, row);
    return 'supersede';
  }

  /** A recoverable commit: reported once (up to `maxItems`) and always superseded, so it lines up behind those not reported yet. */
  private report(id: string, e: IndexEntry, row: StoredCommit): Verdict {
    if (!this.reported.has(id)) {
      if (this.found.length >= this.maxItems) return 'full';
      this.found.push(row.snapshot);
      this.reported.add(id);
      this.supersede(id, e, row);
    }
    return 'supersede';
  }

  private supersede(id: string, entry: IndexEntry, row: StoredRow): void {
    if (!this.successors.has(id)) this.successors.set(id, { entry, row });
  }

  private advance(entry: IndexEntry, verdict: Verdict): void {
    if (!this.advancing) return;
    if (entry.at.position >= this.window.limit || verdict === 'young') {
      this.advancing = false;
      return;
    }
    this.cursor = entry.at;
  }

  /** One successor entry per superseded commit, at the pass's now, living until the commit's own deadline. */
  private async writeSuccessors(): Promise<void> {
    const at = toCqlBigint(this.nowMs, 'recovery position');
    await mapBounded([...this.successors.values()], READ_CONCURRENCY, async ({ entry, row }) => {
      const deadline = auxDeadlineMs(this.ctx, row.bornMicros);
      if (deadline === null || deadline <= this.nowMs) return;
      const createdAt = row.kind === 'commit' ? row.snapshot.intent.createdAt : entry.createdAt;
      await this.ctx.cql.run(this.ctx.recovery.insert, [
        recoveryBucketOf(at),
        at,
        ...commitKeyParams(entry.key),
        toCqlBigint(createdAt, 'createdAt'),
        ttlSecondsOf(deadline - this.nowMs),
      ]);
    });
  }

  private async storeProgress(): Promise<void> {
    if (this.cursor === null || this.start === null || comparePositions(this.cursor, this.start) <= 0) return;
    const ttl = ttlSecondsOf(this.ctx.auxTtlMs + PROGRESS_EXTRA_TTL_MS);
    await this.ctx.cql.run(this.ctx.progress.upsert, [RECOVERY_PROGRESS_SCOPE, ...positionParams(this.cursor), ttl]);
  }
}
