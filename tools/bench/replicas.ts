/**
 * Throughput of a deployment with several writers and mailboxes (issue 30, item 7): sends at
 * saturation (a fixed number in flight, no retries) spread round-robin over every writer for a
 * fixed time, then the wait until the mailboxes have written every entry; CPU per message of every
 * process. Run it alternately against deployments of 1 + 1 and 2 + 2 started by
 * `tools/drills/run serve redis` (`QIM_DRILLS_SERVE_REPLICAS=2` and other ports for the second):
 *
 *   eval "$(QIM_DRILLS_SERVE_PORTS=18180,18181 tools/drills/run serve redis)"   # prints WRITER_URLS, MAILBOX_URLS
 *   WRITER_URLS=… MAILBOX_URLS=… QIM_SERVICE_TOKEN=… tools/bench/run.sh replicas [seconds] [in-flight] [label]
 *
 * Prints one line: label, instances, accepted msg/s, applied msg/s (acknowledged messages ÷ the
 * time from the first send until every entry was written), errors, CPU µs per message by process.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Endpoints } from './e2e/bench-client';
import { benchClient, errorCode } from './e2e/bench-client';
import { createPopulation } from './e2e/population';
import { CpuMeter, cpuSeconds, listenerPid, machineBusy } from './e2e/process-cpu';
import type { WatchedProcess } from './e2e/process-cpu';
import { scrapeStages } from './e2e/stages';

const MEMBERS = 3;
const CONVERSATIONS = 200;

function list(name: string): string[] {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set (tools/drills/run serve prints it)`);
  return v.split(',');
}

/** Every writer and mailbox by its port, and the servers the shared infrastructure started (by pid file). */
function processesOf(writers: readonly string[], mailboxes: readonly string[]): WatchedProcess[] {
  const out: WatchedProcess[] = [];
  for (const [kind, urls] of [
    ['writer', writers],
    ['mailbox', mailboxes],
  ] as const) {
    urls.forEach((u, i) => {
      const pid = listenerPid(Number(new URL(u).port));
      if (pid !== null) out.push({ name: `${kind}-${i + 1}`, pid });
    });
  }
  const state = process.env['QIM_INFRA_STATE_DIR'] ?? path.join(process.cwd(), '.infra');
  // On a Redis Cluster (QIM_REDIS_CLUSTER_NODES) every node the infrastructure started counts as redis.
  const clusterPorts = (process.env['QIM_REDIS_CLUSTER_NODES'] ?? '')
    .split(',')
    .filter(Boolean)
    .map((n) => n.split(':').pop()!);
  const redisFiles =
    clusterPorts.length > 0 ? clusterPorts.map((p) => [`redis-${p}`, `redis-cluster/${p}/redis.pid`] as const) : [['redis', 'redis/redis.pid'] as const];
  for (const [name, file] of [['kafka', 'kafka/kafka.pid'] as const, ...redisFiles]) {
    try {
      const pid = Number(readFileSync(path.join(state, file), 'utf8').trim());
      if (cpuSeconds(pid) !== null) out.push({ name, pid });
    } catch {
      // not running: not measured
    }
  }
  return out;
}

async function entriesWritten(mailboxes: readonly string[]): Promise<number> {
  let n = 0;
  for (const m of mailboxes) n += (await scrapeStages(m)).entriesWritten;
  return n;
}

async function main(): Promise<void> {
  const [secondsArg = '20', inFlightArg = '64', label = ''] = process.argv.slice(2);
  const seconds = Number(secondsArg);
  const inFlight = Number(inFlightArg);
  const writers = list('WRITER_URLS');
  const mailboxes = list('MAILBOX_URLS');
  const token = process.env['QIM_SERVICE_TOKEN'] ?? '';
  const endpoints = (i: number): Endpoints => ({ writerUrl: writers[i % writers.length]!, mailboxUrl: mailboxes[i % mailboxes.length]!, token });
  const pop = await createPopulation(endpoints(0), MEMBERS, CONVERSATIONS);
  const clients = writers.map((_, i) => benchClient(endpoints(i), 10_000, pop.tenant));
  const entries0 = await entriesWritten(mailboxes);
  const meter = new CpuMeter(processesOf(writers, mailboxes));
  const m0 = machineBusy();
  const errors = new Map<string, number>();
  let acked = 0;
  let sent = 0;
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  const worker = async (w: number): Promise<void> => {
    while (performance.now() < end) {
      const c = pop.conversations[Math.floor(Math.random() * pop.conversations.length)]!;
      const sender = c.members[Math.floor(Math.random() * c.members.length)]!;
      const client = clients[(w + sent++) % clients.length]!;
      try {
        await client.as(sender).send({ conversationId: c.id, body: `replicas ${sent}` });
        acked += 1;
      } catch (err) {
        const code = errorCode(err);
        errors.set(code, (errors.get(code) ?? 0) + 1);
      }
    }
  };
  await Promise.all(Array.from({ length: inFlight }, (_, w) => worker(w)));
  const sendMs = performance.now() - t0;
  const want = entries0 + acked * MEMBERS;
  const drainBound = performance.now() + 120_000;
  while ((await entriesWritten(mailboxes)) < want && performance.now() < drainBound) await new Promise((r) => setTimeout(r, 100));
  const appliedMs = performance.now() - t0;
  const drained = (await entriesWritten(mailboxes)) >= want;
  const cpu = meter.read();
  const m1 = machineBusy();
  const busy = ((m1.busySeconds - m0.busySeconds) / ((m1.totalSeconds - m0.totalSeconds) / 2)) * 100;
  const perMsg = (names: string[]): number => Math.round((names.reduce((a, n) => a + (cpu[n]?.cpuSeconds ?? 0), 0) / Math.max(acked, 1)) * 1e6);
  const names = Object.keys(cpu);
  const line = [
    label || `${writers.length}+${mailboxes.length}`,
    `instances ${writers.length}+${mailboxes.length}`,
    `accepted ${Math.round(acked / (sendMs / 1000))}/s`,
    `applied ${Math.round(acked / (appliedMs / 1000))}/s${drained ? '' : ' (NOT drained in 120 s)'}`,
    `acked ${acked}`,
    `errors ${[...errors].map(([k, v]) => `${k}=${v}`).join(' ') || 0}`,
    `CPU µs/msg writers ${perMsg(names.filter((n) => n.startsWith('writer')))} mailboxes ${perMsg(names.filter((n) => n.startsWith('mailbox')))} ` +
      `redis ${perMsg(names.filter((n) => n.startsWith('redis')))} kafka ${perMsg(['kafka'])} client ${perMsg(['bench-client'])}`,
    `machine ${Math.round(busy)} % of 2 cores busy`,
  ];
  process.stdout.write(`${line.join(' | ')}\n`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
