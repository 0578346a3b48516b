/**
 * The mixed phase (`--mixed`, issue 28 item 4): two tenants at once through one writer — a *flooder*
 * sending at saturation into huge conversations (10,000 members by default) and a *light* sender
 * sending into small ones (3 members) at a fixed modest rate — to see how the light tenant fares
 * while the admission gate (ADR-0023) holds the flood back: its sends accepted and refused (503/429),
 * its send latency and its send → visible, beside the flooder's; and over the phase the writer's gate
 * (`qim_admission_closed`) and the delivery lag it reads (`qim_delivery_lag_seconds`).
 */
import type { Endpoints } from './bench-client';
import { DevicePool } from './devices';
import type { SyncMode } from './devices';
import { createPopulation } from './population';
import type { WatchedProcess } from './process-cpu';
import { CpuMeter } from './process-cpu';
import { Sender } from './senders';
import type { SendRun } from './senders';
import type { LatencySummary, SecondSummary } from './stats';
import { bySecond, sleep, summarize } from './stats';
import { Visibility } from './visibility';

/** One side of the mixed phase. */
export interface MixedSide {
  /** Members per conversation. */
  readonly members: number;
  readonly conversations: number;
  /** Members with a syncing device (send → visible is measured for these). */
  readonly devices: number;
}

export interface MixedOptions {
  /** The flooder: saturation (`concurrency` sends in flight). */
  readonly heavy: MixedSide & { readonly concurrency: number };
  /** The light sender: open loop at `rate` msg/s. */
  readonly light: MixedSide & { readonly rate: number };
  readonly seconds: number;
  readonly drainSeconds: number;
  readonly maxSends: number;
  readonly payloadBytes: number;
  readonly warmupSeconds: number;
}

export interface MixedSenderResult {
  readonly members: number;
  readonly conversations: number;
  readonly devices: number;
  readonly mode: string;
  readonly attempted: number;
  readonly accepted: number;
  readonly acceptedPerSecond: number;
  /** Sends answered 503 or 429 (held at the gate and refused, or any other retry-later answer). */
  readonly refused: number;
  readonly errors: Record<string, number>;
  readonly send: LatencySummary;
  readonly visible: LatencySummary;
  readonly notVisibleAfterDrain: number;
  /** Per second of send start: accepted, refused (503/429) and other failures. */
  readonly outcomesBySecond: { second: number; accepted: number; refused: number; failed: number }[];
  readonly visibleBySecond: SecondSummary[];
}

export interface GateSample {
  /** ms since the phase start. */
  readonly t: number;
  /** The writer's `qim_admission_closed` (null: not exported). */
  readonly closed: number | null;
  /** The largest `qim_delivery_lag_seconds` over the watched groups (s; null: none known). */
  readonly lagSeconds: number | null;
}

export interface MixedResult {
  readonly seconds: number;
  readonly heavy: MixedSenderResult;
  readonly light: MixedSenderResult;
  readonly gate: GateSample[];
  /** Share of the gate samples with the gate closed (0…1). */
  readonly closedShare: number | null;
  /** The writer's `qim_admission_waits_total` by outcome, over the phase. */
  readonly admissionWaits: Record<string, number>;
  readonly drainMs: number;
  readonly cpu: Record<string, { corePercent: number } | null>;
  readonly machineCorePercent: number | null;
}

const isRefusal = (code: string): boolean => code.startsWith('503') || code.startsWith('429');

/** The sum of a writer metric's samples by one label (`{}` key '' when unlabelled). */
function metricByLabel(text: string, name: string, label: string | null): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of text.matchAll(new RegExp(`^${name}(\\{[^}]*\\})? ([0-9.e+-]+|NaN)$`, 'gm'))) {
    const key = label === null ? '' : (new RegExp(`${label}="([^"]*)"`).exec(m[1] ?? '')?.[1] ?? '');
    out.set(key, (out.get(key) ?? 0) + Number(m[2]));
  }
  return out;
}

async function writerMetrics(writerUrl: string): Promise<string> {
  const res = await fetch(new URL('/metrics', writerUrl), { signal: AbortSignal.timeout(5_000) });
  if (!res.ok) throw new Error(`GET ${writerUrl}/metrics answered ${res.status}`);
  return res.text();
}

/** Samples the writer's gate and the delivery lag it reads every `everyMs` until stopped. */
class GateWatch {
  readonly samples: GateSample[] = [];
  private running = true;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly writerUrl: string,
    private readonly t0: number,
  ) {}

  start(everyMs = 250): void {
    this.loop = (async () => {
      while (this.running) {
        try {
          const text = await writerMetrics(this.writerUrl);
          const closed = metricByLabel(text, 'qim_admission_closed', null).get('') ?? null;
          const lags = [...metricByLabel(text, 'qim_delivery_lag_seconds', 'group').values()].filter((v) => v >= 0);
          this.samples.push({ t: Math.round(performance.now() - this.t0), closed, lagSeconds: lags.length === 0 ? null : Math.max(...lags) });
        } catch {
          // a missed sample (the writer busy past 5 s) is a gap in the timeline, not a failure of the phase
        }
        await sleep(everyMs);
      }
    })();
  }

  async stop(): Promise<GateSample[]> {
    this.running = false;
    await this.loop;
    return this.samples;
  }
}

function sideResult(side: MixedSide, mode: string, run: SendRun, vis: Visibility, t0: number): MixedSenderResult {
  const seconds = new Map<number, { accepted: number; refused: number; failed: number }>();
  for (const [at, code] of run.outcomes) {
    const s = Math.max(0, Math.floor((at - t0) / 1000));
    const b = seconds.get(s) ?? { accepted: 0, refused: 0, failed: 0 };
    if (code === null) b.accepted++;
    else if (isRefusal(code)) b.refused++;
    else b.failed++;
    seconds.set(s, b);
  }
  const errors = run.errors.toJSON();
  return {
    members: side.members,
    conversations: side.conversations,
    devices: side.devices,
    mode,
    attempted: run.attempted,
    accepted: run.accepted,
    acceptedPerSecond: Math.round((run.accepted / (run.windowMs / 1000)) * 10) / 10,
    refused: Object.entries(errors).reduce((n, [code, c]) => n + (isRefusal(code) ? c : 0), 0),
    errors,
    send: summarize(run.latencies),
    visible: summarize(vis.latencies),
    notVisibleAfterDrain: vis.outstanding,
    outcomesBySecond: [...seconds.keys()].sort((a, b) => a - b).map((second) => ({ second, ...seconds.get(second)! })),
    visibleBySecond: bySecond(vis.sentAt, vis.latencies, t0),
  };
}

/**
 * Runs the mixed phase: both populations with their devices, an unrecorded warm-up of the light
 * sender, then `seconds` of the flood and the light sending together, and the drain (at most
 * `drainSeconds`: the flood's backlog may still be draining then; what is unseen is counted).
 */
export async function mixedPhase(
  endpoints: Endpoints,
  mode: SyncMode,
  o: MixedOptions,
  procs: readonly WatchedProcess[],
  say: (s: string) => void,
): Promise<MixedResult> {
  const heavyPop = await createPopulation(endpoints, o.heavy.members, o.heavy.conversations);
  const lightPop = await createPopulation(endpoints, o.light.members, o.light.conversations);
  const heavyVis = new Visibility();
  const lightVis = new Visibility();
  const heavySynced = heavyPop.users.slice(0, o.heavy.devices);
  const lightSynced = lightPop.users.slice(0, o.light.devices);
  const heavyDevices = new DevicePool(endpoints, heavyPop.tenant, mode, heavyVis);
  const lightDevices = new DevicePool(endpoints, lightPop.tenant, mode, lightVis);
  await heavyDevices.start(heavySynced);
  await lightDevices.start(lightSynced);
  say(
    `mixed: flooder ${o.heavy.members} members × ${o.heavy.conversations} (${heavySynced.length} devices), ` +
      `light ${o.light.members} × ${o.light.conversations} (${lightSynced.length} devices)`,
  );
  const heavy = new Sender(endpoints, heavyPop, heavyVis, o.payloadBytes, o.heavy.concurrency + 64, new Set(heavySynced));
  const light = new Sender(endpoints, lightPop, lightVis, o.payloadBytes, 256, new Set(lightSynced));
  try {
    if (o.warmupSeconds > 0) {
      const w = await light.saturation(16, o.warmupSeconds, o.maxSends, performance.now() + (o.warmupSeconds + o.drainSeconds) * 1000);
      const until = performance.now() + o.drainSeconds * 1000;
      while (lightVis.outstanding > 0 && performance.now() < until) await sleep(50);
      say(`warm-up: ${w.accepted} light sends in ${o.warmupSeconds} s (not recorded)`);
    }
    lightVis.reset();
    heavyVis.reset();
    const waitsBefore = metricByLabel(await writerMetrics(endpoints.writerUrl), 'qim_admission_waits_total', 'outcome');
    const cpu = new CpuMeter(procs);
    const t0 = performance.now();
    const gate = new GateWatch(endpoints.writerUrl, t0);
    gate.start();
    const deadline = t0 + (o.seconds + o.drainSeconds) * 1000;
    const [heavyRun, lightRun] = await Promise.all([
      heavy.saturation(o.heavy.concurrency, o.seconds, o.maxSends, deadline),
      light.fixedRate(o.light.rate, o.seconds, o.maxSends, deadline),
    ]);
    const sendEnd = performance.now();
    while ((heavyVis.outstanding > 0 || lightVis.outstanding > 0) && performance.now() < deadline) await sleep(50);
    const end = performance.now();
    const samples = await gate.stop();
    const cpuUse = cpu.read();
    const waitsAfter = metricByLabel(await writerMetrics(endpoints.writerUrl), 'qim_admission_waits_total', 'outcome');
    const known = samples.filter((s) => s.closed !== null);
    return {
      seconds: o.seconds,
      heavy: sideResult(o.heavy, `saturation ${o.heavy.concurrency}`, heavyRun, heavyVis, t0),
      light: sideResult(o.light, `fixed ${o.light.rate}/s`, lightRun, lightVis, t0),
      gate: samples,
      closedShare: known.length === 0 ? null : Math.round((known.filter((s) => s.closed === 1).length / known.length) * 1000) / 1000,
      admissionWaits: Object.fromEntries([...waitsAfter].map(([k, v]) => [k, v - (waitsBefore.get(k) ?? 0)])),
      drainMs: Math.round(end - sendEnd),
      cpu: Object.fromEntries(Object.entries(cpuUse).map(([k, v]) => [k, v === null ? null : { corePercent: Math.round(v.corePercent) }])),
      machineCorePercent: cpu.machineCorePercent(),
    };
  } finally {
    await heavyDevices.close();
    await lightDevices.close();
  }
}

/** The mixed phase as a table: one row per sender. */
export function renderMixed(r: MixedResult): string {
  const ms = (v: number | null): string => (v === null ? '–' : v >= 10_000 ? `${(v / 1000).toFixed(1)} s` : `${Math.round(v)}`);
  const head = 'sender                    accepted  refused  other  accepted/s  send p50  send p99  visible p50  visible p99  unseen';
  const row = (name: string, s: MixedSenderResult): string => {
    const other = s.attempted - s.accepted - s.refused;
    return [
      name.padEnd(24),
      String(s.accepted).padStart(9),
      String(s.refused).padStart(8),
      String(other).padStart(6),
      String(s.acceptedPerSecond).padStart(11),
      ms(s.send.p50).padStart(9),
      ms(s.send.p99).padStart(9),
      ms(s.visible.p50).padStart(12),
      ms(s.visible.p99).padStart(12),
      String(s.notVisibleAfterDrain).padStart(7),
    ].join(' ');
  };
  const cpu = Object.entries(r.cpu)
    .map(([k, v]) => `${k} ${v === null ? '–' : `${v.corePercent}%`}`)
    .join(', ');
  return [
    head,
    row(`flooder ${r.heavy.members}m ×${r.heavy.conversations}`, r.heavy),
    row(`light ${r.light.members}m ${r.light.mode.replace('fixed ', '')}`, r.light),
    '',
    `errors: flooder ${JSON.stringify(r.heavy.errors)}; light ${JSON.stringify(r.light.errors)}`,
    `gate closed in ${r.closedShare === null ? '–' : `${Math.round(r.closedShare * 100)} %`} of the samples; ` +
      `admission waits ${JSON.stringify(r.admissionWaits)}; drain ${r.drainMs} ms`,
    `CPU: ${cpu}; machine ${r.machineCorePercent === null ? '–' : `${Math.round(r.machineCorePercent)}%`}`,
  ].join('\n');
}
