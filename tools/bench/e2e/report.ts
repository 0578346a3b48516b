import type { BaselineResult } from './raw-baseline';
import type { LatencyEvent } from './redis-latency';
import type { CommitStepName, LoopDelay, Stage, StageDelta, StageSummary } from './stages';
import { COMMIT_STEPS, STAGES, kafkaRequestsPerMessage } from './stages';
import type { LatencySummary, SecondSummary } from './stats';

/** How far before and after a Redis background save a message still counts as slowed by it: the 200 ms polling that finds a save, and the backlog it leaves. */
export const FORK_SLACK_MS = 500;

/** The threshold the benchmark sets on Redis's latency monitor for each phase (put back afterwards). */
export const REDIS_LATENCY_THRESHOLD_MS = 5;

export interface PhaseResult {
  readonly size: number;
  readonly conversations: number;
  readonly devices: number;
  readonly mode: string;
  readonly offeredPerSecond: number | null;
  readonly attempted: number;
  readonly accepted: number;
  readonly acceptedPerSecond: number;
  readonly send: LatencySummary;
  readonly visible: LatencySummary;
  /** Send → visible by the second the send started in (where in the phase the tail came from). */
  readonly visibleBySecond: SecondSummary[];
  /** Fully visible messages per second, over the sending window plus the time to the last one. */
  readonly visiblePerSecond: number;
  readonly notVisibleAfterDrain: number;
  /**
   * Messages applied by the mailbox per second (its entries written, every member), from phase start until all were; null when they were not
   * by the phase's end.
   */
  readonly appliedPerSecond: number | null;
  /** From the last send's answer until the mailbox had applied every accepted message (ms, to its 100 ms scrapes): the lag left when sending stops. */
  readonly applyDrainMs: number | null;
  /** Entries (one per member per message) the mailbox had not written at the phase's end. */
  readonly entriesNotApplied: number;
  readonly drainMs: number;
  readonly sendErrors: Record<string, number>;
  readonly syncErrors: Record<string, number>;
  readonly syncRequestsPerSecond: number;
  /** The benchmark process's event-loop delay over the phase (ms; `monitorEventLoopDelay`, 10 ms resolution). */
  readonly clientLoopDelayMs: LoopDelay;
  /** Each service's event-loop delay over the phase (its `nodejs_eventloop_lag_*` gauges, reset by the scrape before the phase); null if it exposes none. */
  readonly serviceLoopDelayMs: { readonly writer: LoopDelay | null; readonly mailbox: LoopDelay | null };
  readonly skipped: number;
  /** Per watched process (its forked children included, e.g. a Redis AOF rewrite): CPU seconds and % of one core. */
  readonly cpu: Record<string, { cpuSeconds: number; corePercent: number } | null>;
  /** The whole machine's busy CPU over the phase, % of one core (every process and the kernel). */
  readonly machineCorePercent: number;
  /** Redis AOF rewrites / RDB saves that overlapped the phase (forked children); null without a Redis store. */
  readonly redisForks: number | null;
  /** When a Redis background save ran during the phase, `[from, to]` ms since its start (polled every 200 ms); null without a Redis store. */
  readonly redisForkWindowsMs: [number, number][] | null;
  /** Send → visible of the messages whose way stayed clear of those windows (± `FORK_SLACK_MS`); null without a Redis store. */
  readonly visibleOutsideRedisForks: LatencySummary | null;
  /** Redis's latency monitor over the phase (stalls ≥ `REDIS_LATENCY_THRESHOLD_MS`), largest sum first; null without a Redis store. */
  readonly redisLatency?: LatencyEvent[] | null;
  /** Each process's CPU % of one core in the quiet window before the size's phases (empty when skipped). */
  readonly idleCorePercent: Record<string, number>;
  /** Per process, CPU µs per accepted message: in all, and above its idle rate (null without an idle measure). */
  readonly cpuPerMessageUs: Record<string, { total: number; aboveIdle: number | null } | null>;
  /** The mailbox's own delivery-stage histograms over the phase (from created_at; `stages.ts`). */
  readonly stages: StageDelta;
  /** The writer's commit-step histograms over the phase (`stages.ts`); null when the writer exposes none. */
  readonly commitSteps: Record<CommitStepName, StageSummary> | null;
  /** Kafka requests of the writer's and the mailbox's clients over the phase, by "client API" (`qim_kafka_requests_total`). */
  readonly kafkaRequests: Readonly<Record<string, number>>;
}

/**
 * CPU µs per accepted message of each process over a phase of `wallSeconds`, in all and above the
 * process's idle rate (consumer polls, timers, waiting long polls cost CPU with no message at all:
 * at a low accepted rate they dominate the total, which then says little about the cost of a message).
 */
export function cpuPerMessage(
  cpu: PhaseResult['cpu'],
  idleCorePercent: Readonly<Record<string, number>>,
  wallSeconds: number,
  accepted: number,
): PhaseResult['cpuPerMessageUs'] {
  const out: PhaseResult['cpuPerMessageUs'] = {};
  for (const [name, c] of Object.entries(cpu)) {
    if (c === null || accepted === 0) {
      out[name] = null;
      continue;
    }
    const idle = idleCorePercent[name];
    out[name] = {
      total: Math.round((c.cpuSeconds * 1e6) / accepted),
      aboveIdle: idle === undefined ? null : Math.round(((c.cpuSeconds - (idle / 100) * wallSeconds) * 1e6) / accepted),
    };
  }
  return out;
}

const f = (v: number | null): string => (v === null ? '–' : v >= 100 ? v.toFixed(0) : v.toFixed(1));
const tri = (s: LatencySummary): string => `${f(s.p50)} / ${f(s.p99)} / ${f(s.p999)}`;
const pad = (s: string, n: number): string => s.padEnd(n);

/** The benchmark client's CPU as a share of the machine's busy CPU over the phase: how much of the box measured the client, not the services. */
function benchShare(p: PhaseResult): string {
  const own = p.cpu['bench-client']?.corePercent;
  if (own === undefined || p.machineCorePercent === undefined || p.machineCorePercent <= 0) return '–';
  return `${f((100 * own) / p.machineCorePercent)}%`;
}

/** The human-readable table printed at the end of a run. */
export function renderTable(phases: readonly PhaseResult[], baselines: readonly BaselineResult[]): string {
  const lines: string[] = [];
  lines.push(
    `${pad('phase', 26)}${pad('accepted/s', 12)}${pad('applied/s', 11)}${pad('apply drain ms', 16)}${pad('send ms p50/p99/p999', 26)}` +
      `${pad('visible ms p50/p99/p999', 28)}${pad('visible/s', 11)}${pad('unseen', 8)}errors`,
  );
  for (const p of phases) {
    const errs = { ...p.sendErrors, ...Object.fromEntries(Object.entries(p.syncErrors).map(([k, v]) => [`sync ${k}`, v])) };
    const errText =
      Object.keys(errs).length === 0
        ? '0'
        : Object.entries(errs)
            .map(([k, v]) => `${k}×${v}`)
            .join(', ');
    const drainText = p.applyDrainMs === null ? `${p.entriesNotApplied} entries owed` : String(p.applyDrainMs);
    lines.push(
      `${pad(`${p.size}m ${p.mode}`, 26)}${pad(f(p.acceptedPerSecond), 12)}${pad(f(p.appliedPerSecond), 11)}${pad(drainText, 16)}` +
        `${pad(tri(p.send), 26)}${pad(tri(p.visible), 28)}${pad(f(p.visiblePerSecond), 11)}${pad(String(p.notVisibleAfterDrain), 8)}${errText}`,
    );
  }
  lines.push('');
  lines.push(
    'server CPU, % of one core over each phase (sending + drain; a process with its forked children, e.g. a Redis AOF rewrite; ' +
      'machine = every process and the kernel):',
  );
  const names = [...new Set(phases.flatMap((p) => Object.keys(p.cpu)))];
  lines.push(
    `${pad('phase', 26)}${names.map((n) => pad(n, 13)).join('')}${pad('machine', 10)}${pad('bench share', 13)}${pad('sync req/s', 12)}` +
      'event-loop delay ms p99 / max: writer, mailbox, bench client',
  );
  for (const p of phases) {
    const d = (l: LoopDelay | null | undefined): string => (l ? `${f(l.p99)} / ${f(l.max)}` : '–');
    const loop = `${d(p.serviceLoopDelayMs?.writer)}, ${d(p.serviceLoopDelayMs?.mailbox)}, ${d(p.clientLoopDelayMs)}`;
    const machine = p.machineCorePercent === undefined ? '–' : `${f(p.machineCorePercent)}%`;
    lines.push(
      `${pad(`${p.size}m ${p.mode}`, 26)}${names.map((n) => pad(p.cpu[n] ? `${f(p.cpu[n]!.corePercent)}%` : '–', 13)).join('')}` +
        `${pad(machine, 10)}${pad(benchShare(p), 13)}${pad(f(p.syncRequestsPerSecond), 12)}${loop}`,
    );
  }
  const forked = phases.filter((p) => (p.redisForks ?? 0) > 0);
  if (forked.length > 0) {
    lines.push(
      `NOTE: Redis forked for an AOF rewrite or RDB save during ${forked.map((p) => `${p.size}m ${p.mode} (${p.redisForks})`).join(', ')}: ` +
        'the child copies the whole dataset (its CPU is in the redis column) and slows the machine; ' +
        'compare such phases with care (tools/scenario/qim-local reset shrinks the dataset).',
    );
    for (const p of forked) {
      const windows = (p.redisForkWindowsMs ?? []).map(([a, b]) => `${f(a / 1000)}–${f(b / 1000)} s`).join(', ');
      const clear = p.visibleOutsideRedisForks;
      const clearText = clear
        ? `${f(clear.p50)} / ${f(clear.p99)} ms over the ${clear.count} of ${p.visible.count} messages clear of them (±${FORK_SLACK_MS} ms)`
        : '– clear of them';
      lines.push(
        `  ${p.size}m ${p.mode}: saves ran ${windows || '(too short for the 200 ms polls to see)'}; ` +
          `send→visible p50 / p99 ${f(p.visible.p50)} / ${f(p.visible.p99)} ms in all, ${clearText}`,
      );
    }
  }
  const stalled = phases.filter((p) => (p.redisLatency ?? []).length > 0);
  if (stalled.length > 0) {
    lines.push(`Redis latency monitor (stalls ≥ ${REDIS_LATENCY_THRESHOLD_MS} ms; per event: seconds with one, largest, sum of the per-second largest):`);
    for (const p of stalled) {
      const events = p.redisLatency!.map((e) => `${e.event} ${e.seconds} s, max ${e.maxMs}, sum ${e.sumMs} ms`).join('; ');
      lines.push(`  ${p.size}m ${p.mode}: ${events}`);
    }
  }
  lines.push('');
  lines.push('CPU µs per accepted message, in all / above the idle rate measured before the phases (idle % of one core in brackets):');
  lines.push(`${pad('phase', 26)}${names.map((n) => pad(n, 25)).join('')}`);
  for (const p of phases) {
    const cell = (n: string): string => {
      const c = p.cpuPerMessageUs[n];
      if (!c) return '–';
      const idle = p.idleCorePercent[n];
      return c.aboveIdle === null ? String(c.total) : `${c.total} / ${c.aboveIdle} (${f(idle ?? 0)}%)`;
    };
    lines.push(`${pad(`${p.size}m ${p.mode}`, 26)}${names.map((n) => `${pad(cell(n), 24)} `).join('')}`);
  }
  lines.push('');
  lines.push("where delivery time goes, the mailbox's histograms from created_at (writer clock, at reserve), ms p50 / p99:");
  lines.push(
    `${pad('phase', 26)}${STAGES.map((s) => pad(STAGE_TITLE[s], 26)).join('')}${pad('device sees it (from send start)', 34)}` +
      `${pad('OffsetCommit req./msg', 23)}${pad('sync scans read / skipped per message', 40)}read budget: pages shrunk / refused`,
  );
  for (const p of phases) {
    const st = (s: Stage): string => {
      const x = p.stages[s];
      return x.count === 0 ? '–' : `${ms(x.p50)} / ${ms(x.p99)} (${x.count})`;
    };
    const commits = p.accepted === 0 ? '–' : (p.stages.offsetCommits / p.accepted).toFixed(2);
    const scans = p.accepted === 0 ? '–' : `${(p.stages.syncScans.read / p.accepted).toFixed(2)} / ${(p.stages.syncScans.skipped / p.accepted).toFixed(2)}`;
    const budget = `${p.stages.readBudget.shrunk} / ${p.stages.readBudget.refused}`;
    lines.push(
      `${pad(`${p.size}m ${p.mode}`, 26)}${STAGES.map((s) => pad(st(s), 26)).join('')}` +
        `${pad(`${ms(p.visible.p50)} / ${ms(p.visible.p99)}`, 34)}${pad(commits, 23)}${pad(scans, 40)}${budget}`,
    );
  }
  if (phases.some((p) => p.commitSteps !== null)) {
    lines.push('');
    lines.push("where send time goes, the writer's commit steps (each step that succeeded), ms p50 / p99:");
    lines.push(`${pad('phase', 26)}${COMMIT_STEPS.map((s) => pad(s, 26)).join('')}send (client)`);
    for (const p of phases) {
      const st = (s: CommitStepName): string => {
        const x = p.commitSteps?.[s];
        return x === undefined || x.count === 0 ? '–' : `${ms(x.p50)} / ${ms(x.p99)} (${x.count})`;
      };
      lines.push(`${pad(`${p.size}m ${p.mode}`, 26)}${COMMIT_STEPS.map((s) => pad(st(s), 26)).join('')}${ms(p.send.p50)} / ${ms(p.send.p99)}`);
    }
  }
  if (phases.some((p) => Object.keys(p.kafkaRequests).length > 0)) {
    lines.push('');
    lines.push('Kafka requests per accepted message, by API and client (writer: outbox; mailbox: router, dispatch, shards):');
    for (const p of phases) lines.push(`${pad(`${p.size}m ${p.mode}`, 26)}${kafkaRequestsPerMessage(p.kafkaRequests, p.accepted)}`);
  }
  if (baselines.length > 0) {
    lines.push('');
    lines.push('raw baseline (kafkajs produce → consume, same broker, same payload sizes):');
    lines.push(
      `${pad('payload / mode', 26)}${pad('produced/s', 12)}${pad('ack ms p50/p99/p999', 26)}${pad('consumed ms p50/p99/p999', 28)}not acked / not consumed`,
    );
    for (const b of baselines) {
      lines.push(
        `${pad(`${b.payloadBytes} B ${b.mode}`, 26)}${pad(f(b.producedPerSecond), 12)}${pad(tri(b.ack), 26)}${pad(tri(b.endToEnd), 28)}` +
          `${b.unacknowledged} / ${b.notConsumed}`,
      );
    }
  }
  return lines.join('\n');
}

const STAGE_TITLE: Record<Stage, string> = { routed: 'routed (Kafka acked)', applying: 'page to the store', visible: 'visible (frontier)' };

/** A stage quantile for the table: interpolated ms, or "> 300 s" beyond the last bucket. */
function ms(v: number | null): string {
  if (v === null) return '–';
  if (v === Infinity) return '> 300 s';
  return v >= 100 ? String(Math.round(v)) : v.toFixed(1);
}
