/**
 * End-to-end load benchmark (issue 13 item 7): HTTP sends from many senders into conversations of
 * several sizes, at a fixed offered rate and at saturation, with one syncing (long-polling) device
 * per member; send latency, send → visible-in-every-recipient latency, errors by code and server
 * CPU per process, beside a raw kafkajs produce → consume baseline through the same broker.
 * Run: tools/bench/run.sh e2e [options] (README.md in this folder).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { dirname, join, resolve } from 'node:path';
import { encodeMessageEvent, messageEventOf } from '@qim/store-core';
import type { CommitIntent, Id128 } from '@qim/store-core';
import { DevicePool } from './devices';
import type { SyncMode } from './devices';
import { benchClient, errorCode } from './bench-client';
import type { Endpoints } from './bench-client';
import type { BenchOptions } from './options';
import { parseOptions } from './options';
import { createPopulation } from './population';
import { CpuMeter, watchedProcesses } from './process-cpu';
import type { WatchedProcess } from './process-cpu';
import type { BaselineResult } from './raw-baseline';
import { rawBaseline } from './raw-baseline';
import type { PhaseResult } from './report';
import { cpuPerMessage, FORK_SLACK_MS, REDIS_LATENCY_THRESHOLD_MS, renderTable } from './report';
import { commitStepDelta, kafkaRequestDelta, scrapeMailbox, scrapeStages, scrapeWriter, stageDelta } from './stages';
import { forksDuring, readRedisForks, RedisForkWatch } from './redis-forks';
import { RedisLatencyWatch } from './redis-latency';
import type { LoopDelay } from './stages';
import { Sender } from './senders';
import { ensureStack } from './stack';
import { bySecond, outsideWindows, sleep, summarize } from './stats';
import { Visibility } from './visibility';
import type { MixedResult } from './mixed';
import { mixedPhase, renderMixed } from './mixed';

const say = (s: string): boolean => process.stderr.write(`[e2e] ${s}\n`);

async function main(): Promise<void> {
  const root = findRoot();
  const o = parseOptions(process.argv.slice(2), process.env, new Date().toISOString().replace(/[:.]/g, '-'));
  const python = o.plot ? findMatplotlib() : null;
  const stack = await ensureStack(root, o.writerUrl, o.mailboxUrl, o.start);
  const endpoints: Endpoints = { writerUrl: o.writerUrl, mailboxUrl: o.mailboxUrl, token: o.token, fetch: o.fetch };
  const phases: PhaseResult[] = [];
  const baselines: BaselineResult[] = [];
  const load0 = loadavg();
  let mode: SyncMode | null = null;
  let mixed: MixedResult | null = null;
  try {
    say(`client: @qim/client over ${o.fetch ? "Node's fetch (--fetch)" : 'node:http'}`);
    mode = await syncMode(endpoints, o);
    const procs = watchedProcesses(root, { writer: Number(new URL(o.writerUrl).port), mailbox: Number(new URL(o.mailboxUrl).port) });
    say(`watching CPU of ${procs.map((p) => `${p.name} (${p.pid})`).join(', ')}`);
    if (o.mixed !== null) {
      const m = o.mixed;
      mixed = await mixedPhase(
        endpoints,
        mode,
        {
          heavy: { ...m.heavy, concurrency: o.saturation },
          light: { ...m.light, devices: m.light.members * m.light.conversations },
          seconds: o.seconds,
          drainSeconds: o.drainSeconds,
          maxSends: o.maxSends,
          payloadBytes: o.payloadBytes,
          warmupSeconds: o.warmupSeconds,
        },
        procs,
        say,
      );
    }
    for (const size of o.mixed === null ? o.sizes : []) {
      const count = o.conversations.get(size)!;
      const pop = await createPopulation(endpoints, size, count);
      const vis = new Visibility();
      const devices = new DevicePool(endpoints, pop.tenant, mode, vis);
      const synced = o.devices === null ? pop.users : pop.users.slice(0, o.devices);
      await devices.start(synced);
      say(`${size} members × ${count} conversations: ${synced.length} of ${pop.users.length} members have a syncing device`);
      // Sends on the wire at once: the saturation level (at least 256) plus headroom, as a connection pool of that size would allow.
      const sender = new Sender(endpoints, pop, vis, o.payloadBytes, Math.max(o.saturation, 256) + 64, new Set(synced), o.batch);
      // Every accepted message writes one entry per member: the mailbox has applied all sent so far once it wrote this many.
      const applied = new AppliedEntries(o.mailboxUrl, (await scrapeStages(o.mailboxUrl)).entriesWritten);
      if (size === o.sizes[0] && o.warmupSeconds > 0) await warmUp(sender, vis, applied, size, o);
      const idle = await idleCorePercent(procs, o.idleSeconds);
      for (const phase of o.phases) {
        vis.reset();
        devices.takeCounts();
        // Each scrape also starts a service's event-loop delay window (prom-client resets it): this one the mailbox's.
        const stagesBefore = await scrapeStages(o.mailboxUrl);
        const writerBefore = await scrapeWriter(o.writerUrl);
        const forksBefore = stack.redisUrl === null ? null : await readRedisForks(stack.redisUrl);
        const latencyWatch = stack.redisUrl === null ? null : await RedisLatencyWatch.start(stack.redisUrl, REDIS_LATENCY_THRESHOLD_MS);
        const cpu = new CpuMeter(procs);
        // The benchmark's own event loop: a late loop sends late and sees late, and its open-loop
        // sends then arrive in a burst — the table says when the client itself was the delay.
        const loopDelay = monitorEventLoopDelay({ resolution: 10 });
        loopDelay.enable();
        const t0 = performance.now();
        const forkWatch = stack.redisUrl === null ? null : new RedisForkWatch(stack.redisUrl, t0);
        forkWatch?.start();
        // The time bound of a phase: its sending window plus the drain, whatever the services do.
        const deadline = t0 + (o.seconds + o.drainSeconds) * 1000;
        const rate = o.rates.get(size)!;
        const run =
          phase === 'fixed'
            ? await sender.fixedRate(rate, o.seconds, o.maxSends, deadline)
            : await sender.saturation(o.saturation, o.seconds, o.maxSends, deadline);
        const sendEnd = performance.now();
        applied.sent(run.accepted * size);
        const appliedAt = await drain(vis, applied, deadline);
        const end = performance.now();
        const sync = devices.takeCounts();
        const cpuUse = cpu.read();
        const machineCorePercent = cpu.machineCorePercent();
        loopDelay.disable();
        const writerAfter = await scrapeWriter(o.writerUrl);
        const redisForks = stack.redisUrl === null || forksBefore === null ? null : forksDuring(forksBefore, await readRedisForks(stack.redisUrl));
        const redisForkWindowsMs = forkWatch === null ? null : await forkWatch.stop();
        const redisLatency = latencyWatch === null ? null : await latencyWatch.stop();
        const writerLoop = writerAfter.loopDelay;
        // The mailbox's window ended at the drain's first scrape (each scrape starts a new one): the sending window.
        const mailboxLoop = applied.sendingLoopDelay;
        const stagesAfter = await scrapeStages(o.mailboxUrl);
        const stages = stageDelta(stagesBefore, stagesAfter);
        const result: PhaseResult = {
          size,
          conversations: count,
          devices: synced.length,
          mode: `${phase === 'fixed' ? `fixed ${rate}/s` : `saturation ${o.saturation}`}${o.batch > 0 ? ` batch ${o.batch}` : ''}`,
          offeredPerSecond: phase === 'fixed' ? rate : null,
          attempted: run.attempted,
          accepted: run.accepted,
          acceptedPerSecond: round(run.accepted / (run.windowMs / 1000)),
          send: summarize(run.latencies),
          visible: summarize(vis.latencies),
          visibleBySecond: bySecond(vis.sentAt, vis.latencies, t0),
          visiblePerSecond: vis.latencies.length === 0 ? 0 : round(vis.latencies.length / ((vis.lastVisibleAt - t0) / 1000)),
          notVisibleAfterDrain: vis.outstanding,
          appliedPerSecond: appliedAt === null ? null : round(run.accepted / ((appliedAt - t0) / 1000)),
          applyDrainMs: appliedAt === null ? null : Math.max(0, Math.round(appliedAt - sendEnd)),
          entriesNotApplied: applied.missing,
          drainMs: Math.round(end - sendEnd),
          sendErrors: run.errors.toJSON(),
          syncErrors: sync.errors,
          syncRequestsPerSecond: round(sync.requests / ((end - t0) / 1000)),
          clientLoopDelayMs: { p99: round(loopDelay.percentile(99) / 1e6), max: round(loopDelay.max / 1e6) },
          serviceLoopDelayMs: { writer: writerLoop, mailbox: mailboxLoop },
          skipped: run.skipped,
          cpu: cpuUse,
          machineCorePercent,
          redisForks,
          redisForkWindowsMs,
          redisLatency,
          visibleOutsideRedisForks:
            redisForkWindowsMs === null ? null : summarize(outsideWindows(vis.sentAt, vis.latencies, t0, redisForkWindowsMs, FORK_SLACK_MS)),
          idleCorePercent: idle,
          cpuPerMessageUs: cpuPerMessage(cpuUse, idle, (end - t0) / 1000, run.accepted),
          stages,
          commitSteps: writerBefore.steps === null || writerAfter.steps === null ? null : commitStepDelta(writerBefore.steps, writerAfter.steps),
          kafkaRequests: kafkaRequestDelta([writerBefore.kafka, stagesBefore.kafkaRequests], [writerAfter.kafka, stagesAfter.kafkaRequests]),
        };
        phases.push(result);
        say(
          `${size}m ${result.mode}: ${result.acceptedPerSecond} accepted/s, applied/s ${result.appliedPerSecond ?? '–'} ` +
            `(all applied ${result.applyDrainMs ?? '–'} ms after the last send; entries not applied ${result.entriesNotApplied}), ` +
            `send p99 ${result.send.p99} ms, visible p99 ${result.visible.p99} ms, unseen ${result.notVisibleAfterDrain}`,
        );
      }
      await devices.close();
      if (o.baselineSeconds > 0) {
        const bytes = eventBytes(size, o.payloadBytes);
        for (const phase of o.phases) {
          const pace = phase === 'fixed' ? { rate: o.rates.get(size)! } : { concurrency: o.saturation };
          const b = await rawBaseline(stack.brokers, bytes, pace, o.baselineSeconds);
          baselines.push(b);
          say(`raw ${bytes} B ${b.mode}: ${b.producedPerSecond}/s, consumed p99 ${b.endToEnd.p99} ms`);
        }
      }
    }
  } finally {
    if (stack.started && !o.keepStack) stack.stop();
    else if (stack.started) say('stack left running: tools/scenario/qim-local down stops it');
  }
  const out = resolve(root, o.out);
  mkdirSync(dirname(out), { recursive: true });
  const meta = {
    date: new Date().toISOString(),
    commit: git(root, ['rev-parse', '--short', 'HEAD']),
    uncommittedChanges: git(root, ['status', '--porcelain']) !== '',
    cores: cpus().length,
    loadavgBefore: load0,
    loadavgAfter: loadavg(),
    backend: stack.backend,
    note: o.note,
    sync: mode,
    options: { ...o, token: undefined, rates: Object.fromEntries(o.rates), conversations: Object.fromEntries(o.conversations) },
  };
  writeFileSync(out, `${JSON.stringify(mixed === null ? { meta, phases, baselines } : { meta, mixed }, null, 2)}\n`);
  const syncText =
    mode?.kind === 'stream'
      ? 'streamed (GET …/stream; sync req/s = pages)'
      : mode?.kind === 'long-poll'
        ? `long-poll wait_ms=${mode.waitMs}`
        : `SHORT polling every ${mode?.kind === 'short-poll' ? mode.intervalMs : '?'} ms`;
  const load = (l: number[]): string => l.map((v) => v.toFixed(1)).join(' ');
  process.stdout.write(
    `${mixed === null ? renderTable(phases, baselines) : renderMixed(mixed)}\n\n` +
      `sync: ${syncText}; load average before ${load(load0)}, after ${load(meta.loadavgAfter)} (${meta.cores} cores); result: ${out}\n`,
  );
  if (python && mixed !== null) {
    const png = out.replace(/\.json$/, '') + '.png';
    const r = spawnSync(python, [join(root, 'tools/bench/e2e/mixed.py'), png, out], { stdio: 'inherit' });
    if (r.status === 0) process.stdout.write(`chart: ${png}\n`);
    else say('plotting failed (see above)');
  } else if (python) {
    const png = out.replace(/\.json$/, '') + '.png';
    const r = spawnSync(python, [join(root, 'tools/bench/e2e/plot.py'), out, png], { stdio: 'inherit' });
    if (r.status === 0) process.stdout.write(`chart: ${png}\n`);
    else say('plotting failed (see above)');
  }
}

/**
 * Unrecorded saturation sending (and its drain) before the first recorded phase: a freshly started
 * service runs its first seconds of load interpreted and with cold caches, which no later phase sees.
 */
async function warmUp(sender: Sender, vis: Visibility, applied: AppliedEntries, size: number, o: BenchOptions): Promise<void> {
  const deadline = performance.now() + (o.warmupSeconds + o.drainSeconds) * 1000;
  const run = await sender.saturation(o.saturation, o.warmupSeconds, o.maxSends, deadline);
  applied.sent(run.accepted * size);
  await drain(vis, applied, deadline);
  say(`warm-up: ${run.accepted} sends in ${o.warmupSeconds} s (not recorded)`);
  vis.reset();
}

/**
 * How far the mailbox has applied what was sent, from its `qim_mailbox_entries_total{state="written"}`:
 * one entry per member of each accepted message (devices or not). `missing` is the entries still owed.
 */
class AppliedEntries {
  private expected: number;
  missing = 0;
  private firstScrape = true;
  /** The mailbox's event-loop delay from the scrape before the sending to the first scrape after it. */
  sendingLoopDelay: LoopDelay | null = null;

  constructor(
    private readonly mailboxUrl: string,
    writtenSoFar: number,
  ) {
    this.expected = writtenSoFar;
  }

  sent(entries: number): void {
    this.expected += entries;
    this.firstScrape = true;
  }

  /** True once the mailbox has written every entry owed (one scrape of its metrics). */
  async caughtUp(): Promise<boolean> {
    const { stages, loopDelay } = await scrapeMailbox(this.mailboxUrl);
    if (this.firstScrape) this.sendingLoopDelay = loopDelay;
    this.firstScrape = false;
    this.missing = Math.max(0, this.expected - stages.entriesWritten);
    return this.missing === 0;
  }
}

/**
 * After a sending window: waits until every tracked message is visible to its devices and the
 * mailbox has applied every accepted message, or `deadline`. Returns when the mailbox had applied
 * everything (performance.now() ms, to the 100 ms of its scrapes), or null if it had not by the deadline.
 */
async function drain(vis: Visibility, applied: AppliedEntries, deadline: number): Promise<number | null> {
  let appliedAt: number | null = null;
  let nextScrape = 0;
  while (performance.now() < deadline) {
    const now = performance.now();
    if (appliedAt === null && now >= nextScrape) {
      if (await applied.caughtUp()) appliedAt = now;
      nextScrape = now + 100;
    }
    if (appliedAt !== null && vis.outstanding === 0) break;
    await sleep(20);
  }
  return appliedAt;
}

/** Each process's CPU % of one core over `seconds` of quiet (devices connected, nothing sent); {} for 0 s. */
async function idleCorePercent(procs: readonly WatchedProcess[], seconds: number): Promise<Record<string, number>> {
  if (seconds <= 0) return {};
  const meter = new CpuMeter(procs);
  await sleep(seconds * 1000);
  const out: Record<string, number> = {};
  for (const [name, c] of Object.entries(meter.read())) if (c !== null) out[name] = c.corePercent;
  return out;
}

/** Long poll when the mailbox accepts `wait_ms`, otherwise (or with --short-poll) short polling. */
async function syncMode(endpoints: Endpoints, o: BenchOptions): Promise<SyncMode> {
  if (o.stream) {
    if (o.forceShortPoll) throw new Error('--stream and --short-poll exclude each other');
    say('devices: streamed sync (GET …/stream, one response per device; sync req/s counts pages)');
    return { kind: 'stream' };
  }
  if (o.forceShortPoll) {
    say(`devices: short polling every ${o.pollMs} ms (--short-poll)`);
    return { kind: 'short-poll', intervalMs: o.pollMs };
  }
  const probe = benchClient(endpoints, 10_000, randomBytes(16).toString('hex')).as(randomBytes(16).toString('hex'));
  const refused = await probe.syncPage({ waitMs: 1 }).then(
    () => null,
    (err: unknown) => errorCode(err),
  );
  if (refused === null) {
    say(`devices: long-poll, wait_ms=${o.waitMs}`);
    return { kind: 'long-poll', waitMs: o.waitMs };
  }
  say(`devices: SHORT polling every ${o.pollMs} ms — the mailbox does not accept wait_ms yet (answered ${refused})`);
  return { kind: 'short-poll', intervalMs: o.pollMs };
}

/** Bytes of the outbox event of one message of this shape: the raw baseline's payload size. */
function eventBytes(members: number, bodyBytes: number): number {
  const id = (): Id128 => randomBytes(16).toString('hex') as Id128;
  const request = {
    tenantId: id(),
    senderId: id(),
    clientMessageId: id(),
    conversationId: id(),
    kind: 'normal' as const,
    control: false,
    contentType: 'text/plain',
    body: new Uint8Array(bodyBytes),
    retention: { kind: 'default' as const },
  };
  const recipients = Array.from({ length: members }, id).sort();
  const intent: CommitIntent = {
    key: { tenantId: request.tenantId, senderId: request.senderId, clientMessageId: request.clientMessageId },
    identity: new Uint8Array(32),
    request,
    seq: 1n,
    messageId: id(),
    createdAt: BigInt(Date.now()),
    recipients,
    publication: null,
  };
  return encodeMessageEvent(messageEventOf(intent)).length;
}

function findMatplotlib(): string | null {
  const candidates = [process.env['QIM_BENCH_PYTHON'], 'python3', '/usr/bin/python3'].filter((c): c is string => !!c);
  for (const c of candidates) {
    if (spawnSync(c, ['-c', 'import matplotlib'], { stdio: 'ignore' }).status === 0) return c;
  }
  say(
    'matplotlib not found, so no PNG this run. Install it: sudo apt-get install python3-matplotlib ' +
      '(Debian; it is for /usr/bin/python3), or point QIM_BENCH_PYTHON at a python3 that has it.',
  );
  return null;
}

function findRoot(): string {
  for (let dir = process.cwd(); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'tools/scenario/qim-local'))) return dir;
    if (dirname(dir) === dir) throw new Error('run from inside the repository (tools/scenario/qim-local not found above the working directory)');
  }
}

function git(root: string, args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: root }).toString().trim();
  } catch {
    return '';
  }
}

const round = (v: number): number => Math.round(v * 10) / 10;

main().catch((err: unknown) => {
  process.stderr.write(`[e2e] ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
