/**
 * The soak's judgements, as pure functions over what the soak recorded (no I/O, no clock): each
 * returns the violations it found as text lines; an empty list is a pass. Unit-tested in
 * checker.spec.ts.
 */

/** One message the writer ACKed to its client (the first ACK; a replay must return the same). */
export interface AckedMessage {
  readonly messageId: string;
  readonly conversationId: string;
  readonly seq: bigint;
  /** ms, the commit's created_at (store clock). */
  readonly createdAt: bigint;
  /** The member snapshot of the commit: the users whose mailbox must get it. */
  readonly recipients: readonly string[];
  /** Ephemeral lifetime (ms) or null (default retention: kept forever in history). */
  readonly ephemeralMs: bigint | null;
}

/** A replayed send must return the first ACK's seq and message id. */
export function checkReplay(first: AckedMessage, replay: { readonly messageId: string; readonly seq: bigint }): string[] {
  if (first.messageId === replay.messageId && first.seq === replay.seq) return [];
  return [`replay of ${first.messageId} answered message ${replay.messageId} seq ${replay.seq}, first ACK was seq ${first.seq}`];
}

/** One history row as read back (conversation paging, ascending). */
export interface HistoryRow {
  readonly seq: bigint;
  readonly messageId: string;
}

/**
 * History of one conversation against the ACKs: every ACKed message once at its seq while it is
 * retained (default retention: always; ephemeral: until `createdAt + ephemeralMs`), no expired
 * ephemeral message returned, no seq or message twice, nothing unknown (a row of a send never ACKed
 * is allowed only when listed in `pending`: a commit the recovery loop finished before the client's
 * retry). `marginMs` excuses the instants around an ephemeral expiry (clock granularity).
 * `expiryByClock` false (a server-TTL store driven by a simulated clock): an expired ephemeral row
 * may still be returned (the server has not reached that time), it must never be missing early.
 */
export function checkHistory(
  conversationId: string,
  rows: readonly HistoryRow[],
  acked: readonly AckedMessage[],
  pending: ReadonlySet<string>,
  nowMs: bigint,
  marginMs: bigint,
  expiryByClock = true,
): string[] {
  const out: string[] = [];
  const bySeq = new Map<bigint, number>();
  const byId = new Map<string, HistoryRow[]>();
  let prev: bigint | null = null;
  for (const r of rows) {
    if (prev !== null && r.seq <= prev) out.push(`history ${conversationId}: seq ${r.seq} after ${prev} (not ascending)`);
    prev = r.seq;
    bySeq.set(r.seq, (bySeq.get(r.seq) ?? 0) + 1);
    byId.set(r.messageId, [...(byId.get(r.messageId) ?? []), r]);
  }
  for (const [seq, n] of bySeq) if (n > 1) out.push(`history ${conversationId}: seq ${seq} returned ${n} times`);
  const known = new Set<string>();
  for (const m of acked) {
    known.add(m.messageId);
    const found = byId.get(m.messageId) ?? [];
    if (found.length > 1) out.push(`history ${conversationId}: message ${m.messageId} returned ${found.length} times`);
    const expiry = m.ephemeralMs === null ? null : m.createdAt + m.ephemeralMs;
    const mustBeThere = expiry === null || nowMs + marginMs < expiry;
    const mustBeGone = expiryByClock && expiry !== null && nowMs >= expiry + marginMs;
    if (found.length === 0 && mustBeThere) out.push(`history ${conversationId}: ACKed message ${m.messageId} (seq ${m.seq}) missing`);
    if (found.length > 0 && mustBeGone) out.push(`history ${conversationId}: ephemeral message ${m.messageId} returned after its expiry`);
    for (const f of found) if (f.seq !== m.seq) out.push(`history ${conversationId}: message ${m.messageId} at seq ${f.seq}, ACKed with seq ${m.seq}`);
  }
  for (const id of byId.keys()) {
    if (!known.has(id) && !pending.has(id)) out.push(`history ${conversationId}: message ${id} was never sent`);
  }
  return out;
}

/** What one device did in one sync (a run of pages until `hasMore` is false). */
/** `cursor-expired`: a 410 resync answer (CURSOR_EXPIRED, or EPOCH_MISMATCH for a cursor of an older mailbox epoch). */
export type SyncResult =
  | { readonly kind: 'pages'; readonly messageIds: readonly string[]; readonly seqs: readonly bigint[] }
  /** The store answered CURSOR_EXPIRED for the device's cursor: it resyncs from the retained boundary. */
  | { readonly kind: 'cursor-expired' };

/**
 * A device's view of its user's mailbox, kept across simulated days: what it was given since its
 * cursor was last (re)set, which messages a CURSOR_EXPIRED excused, and from when it must see
 * everything. The soak feeds it each sync; `expectations` compares it with the ACKs.
 */
export class DeviceView {
  /** Message ids delivered since the cursor was last (re)set, with their counts. */
  private readonly current = new Map<string, number>();
  /** Every message delivered at some point (a resync may deliver a message again: allowed). */
  private readonly ever = new Set<string>();
  /** Messages the device may lack: created before a CURSOR_EXPIRED answer, not delivered by then. */
  private readonly excused = new Set<string>();
  /** Messages created before this instant may be missing (the first sync starts at the retained boundary). */
  private validFrom: bigint | null = null;
  private lastSeq: bigint | null = null;
  expiredCount = 0;
  syncs = 0;
  readonly violations: string[] = [];

  constructor(
    readonly name: string,
    readonly userId: string,
  ) {}

  /** True when the device has a cursor (it synced before and was not reset since). */
  get hasCursor(): boolean {
    return this.validFrom !== null;
  }

  /**
   * Records one sync at `nowMs`. A first sync (no cursor) starts at the retained boundary, so only
   * messages created after `nowMs − retentionMs + marginMs` are owed to it. A CURSOR_EXPIRED excuses
   * every owed message not delivered yet and resets the cursor (the next sync is a first sync).
   * `epochFromMs`: when the reader's mailbox epoch began (a first sync starts at that epoch's start,
   * so nothing created before it is owed to it); absent: the first epoch.
   */
  record(result: SyncResult, nowMs: bigint, retentionMs: bigint, marginMs: bigint, owed: readonly AckedMessage[], epochFromMs?: bigint): void {
    this.syncs++;
    if (result.kind === 'cursor-expired') {
      this.expiredCount++;
      for (const m of owed) if (!this.ever.has(m.messageId)) this.excused.add(m.messageId);
      this.current.clear();
      this.validFrom = null;
      this.lastSeq = null;
      return;
    }
    if (this.validFrom === null) {
      const retained = nowMs - retentionMs + marginMs;
      this.validFrom = epochFromMs !== undefined && epochFromMs > retained ? epochFromMs : retained;
    }
    result.seqs.forEach((s) => {
      if (this.lastSeq !== null && s <= this.lastSeq) this.violations.push(`${this.name}: mailbox seq ${s} delivered after ${this.lastSeq}`);
      this.lastSeq = s;
    });
    for (const id of result.messageIds) {
      const n = (this.current.get(id) ?? 0) + 1;
      this.current.set(id, n);
      this.ever.add(id);
      if (n === 2) this.violations.push(`${this.name}: message ${id} delivered twice under one cursor`);
    }
  }

  /**
   * After a sync that caught up with a drained pipeline: every message owed to the user (ACKed, the
   * user a recipient, created at or after `validFrom`) was delivered, unless a CURSOR_EXPIRED excused
   * it; and nothing delivered is unknown (`known`: ACKed or pending ids).
   */
  expectations(owed: readonly AckedMessage[], known: (id: string) => boolean): string[] {
    const out = [...this.violations];
    this.violations.length = 0;
    if (this.validFrom === null) return out;
    for (const m of owed) {
      if (m.createdAt < this.validFrom || this.excused.has(m.messageId) || this.ever.has(m.messageId)) continue;
      out.push(`${this.name}: ACKed message ${m.messageId} (conversation ${m.conversationId} seq ${m.seq}) silently missing from the mailbox`);
    }
    for (const id of this.ever) if (!known(id)) out.push(`${this.name}: delivered message ${id} was never sent`);
    return out;
  }
}

/** Storage counts of one simulated day: structure name → rows / keys (or members). */
export interface StorageSample {
  readonly day: number;
  readonly counts: Readonly<Record<string, number>>;
}

/**
 * Storage stays bounded: for every structure not exempt (history of default-retention messages grows
 * by design), the counts of the days after `steadyFromDay` must stay flat — the mean of the last
 * third of those days at most `tolerance` above the mean of the first third (plus `slack` rows for
 * tiny structures). Needs at least 3 steady days; fewer → a violation saying so.
 */
export function checkBounded(
  samples: readonly StorageSample[],
  steadyFromDay: number,
  exempt: (name: string) => boolean,
  tolerance = 0.25,
  slack = 20,
): string[] {
  const steady = samples.filter((s) => s.day >= steadyFromDay);
  if (steady.length < 3) return [`storage: only ${steady.length} simulated day(s) after day ${steadyFromDay}; need ≥ 3 to judge flatness`];
  const names = new Set(samples.flatMap((s) => Object.keys(s.counts)));
  const third = Math.max(1, Math.floor(steady.length / 3));
  const mean = (xs: readonly StorageSample[], n: string): number => xs.reduce((a, s) => a + (s.counts[n] ?? 0), 0) / xs.length;
  const out: string[] = [];
  for (const n of [...names].sort()) {
    if (exempt(n)) continue;
    const early = mean(steady.slice(0, third), n);
    const late = mean(steady.slice(-third), n);
    if (late > early * (1 + tolerance) + slack) {
      out.push(`storage: ${n} keeps growing after day ${steadyFromDay}: mean ${early.toFixed(0)} → ${late.toFixed(0)}`);
    }
  }
  return out;
}

/**
 * A loop (recovery, housekeeping, router, shard apply) must not throw repeatedly: `maxConsecutive`
 * failures in a row is a violation. Feed it each run; `failures` lists what to report.
 */
export class LoopHealth {
  private readonly consecutive = new Map<string, number>();
  private readonly total = new Map<string, number>();
  private readonly lastError = new Map<string, string>();
  readonly failures: string[] = [];

  constructor(private readonly maxConsecutive = 3) {}

  ran(loop: string, error: unknown | null): void {
    if (error === null) {
      this.consecutive.set(loop, 0);
      return;
    }
    const n = (this.consecutive.get(loop) ?? 0) + 1;
    this.consecutive.set(loop, n);
    this.total.set(loop, (this.total.get(loop) ?? 0) + 1);
    const text = error instanceof Error ? `${error.constructor.name}: ${error.message}` : String(error);
    this.lastError.set(loop, text);
    if (n === this.maxConsecutive) this.failures.push(`loop ${loop} threw ${n} times in a row: ${text}`);
  }

  /** Failures per loop so far (consecutive or not). */
  totals(): Readonly<Record<string, number>> {
    return Object.fromEntries(this.total);
  }
}

/**
 * No shard stalls longer than one loop interval: `stalledSince` is when the shard's first unapplied
 * page was refused or failed (null: not stalled). A violation once `nowMs − since > intervalMs`.
 */
export function checkStall(shard: number, stalledSince: bigint | null, nowMs: bigint, intervalMs: bigint): string[] {
  if (stalledSince === null || nowMs - stalledSince <= intervalMs) return [];
  return [`shard ${shard} stalled for ${nowMs - stalledSince} ms (> one loop interval, ${intervalMs} ms)`];
}
