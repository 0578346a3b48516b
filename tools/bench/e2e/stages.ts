/**
 * Where delivery time goes, read from the mailbox's own histograms (`GET /metrics`): for each
 * message, from its created_at (the writer's clock, taken at reserve) to
 * - `routed`: its dispatch records acknowledged by Kafka at the router (outbox publish + one Kafka hop + routing),
 * - `applying`: its dispatch's page handed to the shard store (+ the dispatch topic's hop and the queue before the page),
 * - `visible`: the page's frontier written, entries readable (+ the apply itself).
 * The benchmark's device-visible latency adds the send's way in before created_at and the long
 * poll's wake and answer after `visible`. Histograms are cumulative, so a phase is the difference
 * of two scrapes; a quantile is interpolated inside its bucket (the buckets end at 2, 5, 10, 20,
 * 35, 50, 75, 100, 150, 250, 500 ms …).
 */

export const STAGES = ['routed', 'applying', 'visible'] as const;
export type Stage = (typeof STAGES)[number];

/** Range scans of device syncs so far: sent to the store, and skipped (the cursor proven current in process). */
export interface SyncScans {
  readonly read: number;
  readonly skipped: number;
}

/** Device syncs the read budget (ADR-0043) served with a shorter page, and refused with 503. */
export interface ReadBudgetCounts {
  readonly shrunk: number;
  readonly refused: number;
}

/**
 * Per stage, cumulative counts by bucket upper bound (s; +Inf last); the OffsetCommit requests sent
 * so far, all roles; the sync scans; the mailbox entries written so far, all shards (one per member
 * of each applied message: how far the mailbox has applied, whether or not a device syncs it).
 */
export type StageScrape = Record<Stage, ReadonlyMap<number, number>> & {
  readonly offsetCommits: number;
  readonly syncScans: SyncScans;
  readonly readBudget: ReadBudgetCounts;
  readonly entriesWritten: number;
  /** The mailbox's Kafka requests so far by "client API" (`parseKafkaRequests`). */
  readonly kafkaRequests: ReadonlyMap<string, number>;
};

export interface StageSummary {
  readonly count: number;
  /** ms, interpolated inside the bucket; null without samples, Infinity beyond the last finite bucket. */
  readonly p50: number | null;
  readonly p99: number | null;
}

const COMMITS = /^qim_kafka_offset_commit_requests_total\{[^}]*\}\s+(\S+)$/;
const SCANS = /^qim_sync_scans_total\{[^}]*result="(read|skipped)"[^}]*\}\s+(\S+)$/;
const BUDGET = /^qim_read_budget_(shrunk|refused)_total(?:\{[^}]*\})?\s+(\S+)$/;
const WRITTEN = /^qim_mailbox_entries_total\{[^}]*state="written"[^}]*\}\s+(\S+)$/;
const LINE = /^(qim_delivery_stage_seconds_bucket|qim_dispatch_lag_seconds_bucket)\{([^}]*)\}\s+(\S+)$/;

/** Parses the two histograms out of a Prometheus text exposition (dispatch lag summed over shards). */
export function parseStages(text: string): StageScrape {
  const acc: Record<Stage, Map<number, number>> = { routed: new Map(), applying: new Map(), visible: new Map() };
  let offsetCommits = 0;
  const scans = { read: 0, skipped: 0 };
  const budget = { shrunk: 0, refused: 0 };
  let entriesWritten = 0;
  for (const line of text.split('\n')) {
    const w = WRITTEN.exec(line);
    if (w) entriesWritten += Number(w[1]);
    const c = COMMITS.exec(line);
    if (c) offsetCommits += Number(c[1]);
    const sc = SCANS.exec(line);
    if (sc) scans[sc[1] as 'read' | 'skipped'] += Number(sc[2]);
    const rb = BUDGET.exec(line);
    if (rb) budget[rb[1] as 'shrunk' | 'refused'] += Number(rb[2]);
    const m = LINE.exec(line);
    if (!m) continue;
    const b = bucketOf(m[2]!, m[3]!, line);
    if (b === null) continue;
    const stage: string | undefined = m[1] === 'qim_dispatch_lag_seconds_bucket' ? 'visible' : b.labels.get('stage');
    if (stage !== 'routed' && stage !== 'applying' && stage !== 'visible') continue;
    acc[stage].set(b.bound, (acc[stage].get(b.bound) ?? 0) + b.value);
  }
  if (!Number.isFinite(offsetCommits)) throw new Error('unreadable qim_kafka_offset_commit_requests_total');
  if (!Number.isFinite(scans.read) || !Number.isFinite(scans.skipped)) throw new Error('unreadable qim_sync_scans_total');
  if (!Number.isFinite(budget.shrunk) || !Number.isFinite(budget.refused)) throw new Error('unreadable qim_read_budget_*_total');
  if (!Number.isFinite(entriesWritten)) throw new Error('unreadable qim_mailbox_entries_total');
  return { ...acc, offsetCommits, syncScans: scans, readBudget: budget, entriesWritten, kafkaRequests: parseKafkaRequests(text) };
}

/** The labels of one exposition line, from the text between its braces. */
function labelsOf(labelText: string): Map<string, string> {
  return new Map([...labelText.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1]!, l[2]!]));
}

/** One histogram bucket line's labels, upper bound (s; +Inf as Infinity) and count; null without an `le` label. */
function bucketOf(labelText: string, valueText: string, line: string): { labels: Map<string, string>; bound: number; value: number } | null {
  const labels = labelsOf(labelText);
  const le = labels.get('le');
  if (le === undefined) return null;
  const bound = le === '+Inf' ? Infinity : Number(le);
  const value = Number(valueText);
  if (Number.isNaN(bound) || !Number.isFinite(value)) throw new Error(`unreadable histogram bucket: ${line}`);
  return { labels, bound, value };
}

export type StageDelta = Record<Stage, StageSummary> & {
  readonly offsetCommits: number;
  readonly syncScans: SyncScans;
  readonly readBudget: ReadBudgetCounts;
  readonly entriesWritten: number;
};

/** Count and p50/p99 (ms) of each stage between two scrapes of the same process, and the counters' differences. */
export function stageDelta(before: StageScrape, after: StageScrape): StageDelta {
  const syncScans = { read: after.syncScans.read - before.syncScans.read, skipped: after.syncScans.skipped - before.syncScans.skipped };
  const readBudget = { shrunk: after.readBudget.shrunk - before.readBudget.shrunk, refused: after.readBudget.refused - before.readBudget.refused };
  const out = {
    offsetCommits: after.offsetCommits - before.offsetCommits,
    syncScans,
    readBudget,
    entriesWritten: after.entriesWritten - before.entriesWritten,
  } as Record<Stage, StageSummary> & { offsetCommits: number; syncScans: SyncScans; readBudget: ReadBudgetCounts; entriesWritten: number };
  if (out.entriesWritten < 0) throw new Error('mailbox entries written went down between scrapes (the mailbox restarted?)');
  if (out.offsetCommits < 0) throw new Error('OffsetCommit requests went down between scrapes (the mailbox restarted?)');
  if (syncScans.read < 0 || syncScans.skipped < 0) throw new Error('sync scans went down between scrapes (the mailbox restarted?)');
  if (readBudget.shrunk < 0 || readBudget.refused < 0) throw new Error('read budget counters went down between scrapes (the mailbox restarted?)');
  for (const stage of STAGES) out[stage] = bucketDelta(before[stage], after[stage], `histogram of ${stage} went down between scrapes (the mailbox restarted?)`);
  return out;
}

/** Count and p50/p99 (ms) of the samples between two cumulative bucket maps; `wentDown` is the error when a bucket shrank. */
function bucketDelta(before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>, wentDown: string): StageSummary {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const cumulative = bounds.map((b) => (after.get(b) ?? 0) - (before.get(b) ?? 0));
  if (cumulative.some((c) => c < 0)) throw new Error(wentDown);
  const count = cumulative.length === 0 ? 0 : cumulative[cumulative.length - 1]!;
  return { count, p50: quantile(bounds, cumulative, 0.5), p99: quantile(bounds, cumulative, 0.99) };
}

/**
 * Where send time goes, read from the writer's `qim_commit_step_seconds`: each step of a commit that
 * succeeded — `reserve` (idempotency claim + seq), `record` (record, index, RECORDED), `publish`
 * (the outbox event acknowledged by Kafka) and `commit` (COMMITTED). A send's latency is their sum
 * plus the HTTP way in and out.
 */
export const COMMIT_STEPS = ['reserve', 'record', 'publish', 'commit'] as const;
export type CommitStepName = (typeof COMMIT_STEPS)[number];
export type CommitStepScrape = Record<CommitStepName, ReadonlyMap<number, number>>;

const STEP_LINE = /^qim_commit_step_seconds_bucket\{([^}]*)\}\s+(\S+)$/;

/** The commit-step histogram of a writer's Prometheus text; null when the writer exposes none (an older build). */
export function parseCommitSteps(text: string): CommitStepScrape | null {
  if (!text.includes('# TYPE qim_commit_step_seconds histogram')) return null;
  const acc: Record<CommitStepName, Map<number, number>> = { reserve: new Map(), record: new Map(), publish: new Map(), commit: new Map() };
  for (const line of text.split('\n')) {
    const m = STEP_LINE.exec(line);
    if (!m) continue;
    const b = bucketOf(m[1]!, m[2]!, line);
    const step = b?.labels.get('step');
    if (b === null || !(COMMIT_STEPS as readonly string[]).includes(step ?? '')) continue;
    acc[step as CommitStepName].set(b.bound, b.value);
  }
  return acc;
}

/** Count and p50/p99 (ms) of each commit step between two scrapes of the same writer. */
export function commitStepDelta(before: CommitStepScrape, after: CommitStepScrape): Record<CommitStepName, StageSummary> {
  const out = {} as Record<CommitStepName, StageSummary>;
  for (const step of COMMIT_STEPS) out[step] = bucketDelta(before[step], after[step], `commit step ${step} went down between scrapes (the writer restarted?)`);
  return out;
}

/** One scrape of the writer's metrics: its commit steps (null from an older build) and event-loop delay since its previous scrape. */
export async function scrapeWriter(writerUrl: string): Promise<{ steps: CommitStepScrape | null; loopDelay: LoopDelay | null; kafka: Map<string, number> }> {
  const res = await fetch(new URL('/metrics', writerUrl));
  if (!res.ok) throw new Error(`GET ${writerUrl}/metrics answered ${res.status}`);
  const text = await res.text();
  return { steps: parseCommitSteps(text), loopDelay: parseLoopDelay(text), kafka: parseKafkaRequests(text) };
}

function quantile(bounds: readonly number[], cumulative: readonly number[], q: number): number | null {
  const count = cumulative.length === 0 ? 0 : cumulative[cumulative.length - 1]!;
  if (count === 0) return null;
  const rank = q * count;
  for (let i = 0; i < bounds.length; i++) {
    if (cumulative[i]! < rank) continue;
    const hi = bounds[i]!;
    if (hi === Infinity) return Infinity;
    const lo = i === 0 ? 0 : bounds[i - 1]!;
    const below = i === 0 ? 0 : cumulative[i - 1]!;
    const inBucket = cumulative[i]! - below;
    const frac = inBucket === 0 ? 1 : (rank - below) / inBucket;
    return Math.round((lo + (hi - lo) * frac) * 10_000) / 10;
  }
  return Infinity;
}

/** One scrape of the mailbox's metrics; fails loudly when the histograms are missing. */
export async function scrapeStages(mailboxUrl: string): Promise<StageScrape> {
  return (await scrapeMailbox(mailboxUrl)).stages;
}

/**
 * One scrape of the mailbox's metrics: the stage histograms and counters, and its event-loop delay
 * since its previous scrape (every scrape starts a new event-loop window).
 */
export async function scrapeMailbox(mailboxUrl: string): Promise<{ stages: StageScrape; loopDelay: LoopDelay | null }> {
  const res = await fetch(new URL('/metrics', mailboxUrl));
  if (!res.ok) throw new Error(`GET ${mailboxUrl}/metrics answered ${res.status}`);
  const text = await res.text();
  for (const name of ['qim_delivery_stage_seconds', 'qim_dispatch_lag_seconds']) {
    // (the OffsetCommit counter appears with its first request; absent means 0)
    if (!text.includes(`# TYPE ${name} histogram`)) throw new Error(`${mailboxUrl}/metrics has no histogram ${name} (an older mailbox build?)`);
  }
  return { stages: parseStages(text), loopDelay: parseLoopDelay(text) };
}

/** A service's event-loop delay (ms, p99 and max) since its previous scrape: prom-client's `nodejs_eventloop_lag_*` resets at every scrape. */
export interface LoopDelay {
  readonly p99: number;
  readonly max: number;
}

/** Parses the event-loop delay gauges of a Prometheus text exposition; null when the service exposes none. */
export function parseLoopDelay(text: string): LoopDelay | null {
  const value = (name: string): number | null => {
    const m = new RegExp(`^nodejs_eventloop_lag_${name}_seconds(?:\\{[^}]*\\})?\\s+(\\S+)$`, 'm').exec(text);
    return m ? Number(m[1]) * 1000 : null;
  };
  const p99 = value('p99');
  const max = value('max');
  if (p99 === null || max === null || !Number.isFinite(p99) || !Number.isFinite(max)) return null;
  return { p99: Math.round(p99 * 10) / 10, max: Math.round(max * 10) / 10 };
}

const KAFKA_REQUESTS = /^qim_kafka_requests_total\{([^}]*)\}\s+(\S+)$/;

/** A service's Kafka requests so far (`qim_kafka_requests_total`), by "client API"; empty when it exposes none yet. */
export function parseKafkaRequests(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = KAFKA_REQUESTS.exec(line);
    if (!m) continue;
    const labels = labelsOf(m[1]!);
    const value = Number(m[2]);
    if (!Number.isFinite(value)) throw new Error(`unreadable qim_kafka_requests_total: ${line}`);
    const key = `${labels.get('client') ?? '?'} ${labels.get('api') ?? '?'}`;
    out.set(key, (out.get(key) ?? 0) + value);
  }
  return out;
}

/** Kafka requests between two scrapes of the same services (one map per service, in the same order), by "client API". */
export function kafkaRequestDelta(before: readonly ReadonlyMap<string, number>[], after: readonly ReadonlyMap<string, number>[]): Record<string, number> {
  const out: Record<string, number> = {};
  after.forEach((a, i) => {
    for (const [key, value] of a) {
      const d = value - (before[i]?.get(key) ?? 0);
      if (d < 0) throw new Error(`Kafka requests of ${key} went down between scrapes (a service restarted?)`);
      out[key] = (out[key] ?? 0) + d;
    }
  });
  return out;
}

/** The report's line: requests per message for Produce, Fetch and OffsetCommit (each by client), the rest as "other". */
export function kafkaRequestsPerMessage(delta: Readonly<Record<string, number>>, messages: number): string {
  if (messages === 0) return '–';
  const per = (n: number): string => (n / messages).toFixed(2);
  const parts: string[] = [];
  let other = 0;
  const byApi = new Map<string, [string, number][]>();
  for (const [key, n] of Object.entries(delta)) {
    const [client, api] = key.split(' ') as [string, string];
    if (api !== 'Produce' && api !== 'Fetch' && api !== 'OffsetCommit') {
      other += n;
      continue;
    }
    byApi.set(api, [...(byApi.get(api) ?? []), [client, n]]);
  }
  for (const api of ['Produce', 'Fetch', 'OffsetCommit']) {
    const clients = byApi.get(api);
    if (!clients) continue;
    parts.push(`${api} ${per(clients.reduce((s, [, n]) => s + n, 0))} (${clients.map(([c, n]) => `${c} ${per(n)}`).join(', ')})`);
  }
  parts.push(`other ${per(other)}`);
  return parts.join(' · ');
}
