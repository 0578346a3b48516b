/**
 * The mailbox apply path on a Redis Cluster with and without replica acks (ADR-0038): what the waits
 * of `QIM_REDIS_MIN_REPLICA_ACKS=1` cost a page (run: `tools/bench/run.sh redis-cluster-mailbox
 * [--rounds N]`; needs QIM_REDIS_CLUSTER_NODES or QIM_TEST_REDIS_CLUSTER_NODES from `tools/infra/infra env`).
 *
 * With acks ≥ 1 a page's entries are waited for on every primary that took them (fenced WAIT) before
 * the shard frontier that vouches for them is written, and the frontier write is waited for in turn:
 * two waits per page where acks 0 has none. Two targets, the store on the cluster with acks 0 and with
 * acks 1, alternate page batch by page batch (the order swapping every round) so both see the same
 * machine. Shape: 1,000 three-recipient dispatches per round in pages of `--page` (default 500, the
 * mailbox's default page), every user new to its page (like a shard's page of unrelated conversations);
 * the users' day is registered in a warm-up round first (the steady state).
 *
 * Printed per round and target: entries/s inside `applyPage`, apply → visible p50/p99 per page (the
 * call to its frontier written), this process's CPU µs per entry, the cluster's CPU µs per entry (INFO
 * cpu summed over every node, primaries and replicas), and WAIT calls per page (commandstats over the
 * primaries). `--json FILE` also writes the rows. Env: QIM_BENCH_SECONDS (per target and round, default 5).
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { systemClock } from '@qim/store-core';
import type { DispatchPage, DispatchRecord, Id128, MailboxStore } from '@qim/store-core';
import { DEFAULT_MAILBOX_PAGE_RECORDS } from '@qim/mailbox-runtime';
import type { Cluster, Redis } from 'ioredis';
import { backendConfigFromEnv, connectRawRedis, openTestStores } from '@qim/backends/testing';
import { flag } from './in-flight';

const SECONDS = Number(process.env['QIM_BENCH_SECONDS'] ?? 5);
const SHARD = 11;
const EPOCH = 1;
const PAYLOAD = randomBytes(256);
const rid = (): Id128 => randomBytes(16).toString('hex') as Id128;
const tenantId = rid();
const GC = { entryRetentionMs: 7n * 86_400_000n, dispatchDedupeMs: 86_400_000n };

interface Target {
  readonly name: string;
  readonly store: MailboxStore;
  readonly close: () => Promise<void>;
  offset: bigint;
}

async function openTarget(name: string, env: Record<string, string>): Promise<Target> {
  const cfg = { ...backendConfigFromEnv('redis', env), namespace: `qimbench-${randomBytes(4).toString('hex')}` };
  const stores = await openTestStores(cfg, { clock: systemClock });
  const store = stores.mailboxStore({ shard: SHARD, epoch: EPOCH }, GC);
  return { name, store, close: () => stores.close(), offset: ((await store.frontier()).offset ?? -1n) + 1n };
}

function page(target: Target, users: readonly (readonly Id128[])[]): DispatchPage {
  const fromOffset = target.offset;
  target.offset += BigInt(users.length);
  const records = users.map((recipients, i) => {
    const record: DispatchRecord = {
      dispatchId: rid(),
      tenantId,
      shard: SHARD,
      messageId: rid(),
      conversationId: rid(),
      seq: 1n,
      createdAt: systemClock.nowMs(),
      recipients,
      events: [{ ordinal: 0, eventId: rid(), payload: PAYLOAD }],
    };
    return { offset: fromOffset + BigInt(i), record };
  });
  return { fromOffset, toOffset: target.offset - 1n, records };
}

async function clusterCpuUs(nodes: readonly Redis[]): Promise<number> {
  let sum = 0;
  for (const node of nodes) {
    const info = await node.info('cpu');
    const field = (name: string): number => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
    sum += (field('used_cpu_user') + field('used_cpu_sys')) * 1e6;
  }
  return sum;
}

async function waitCalls(primaries: readonly Redis[]): Promise<number> {
  let sum = 0;
  for (const node of primaries) sum += Number(/^cmdstat_wait:calls=(\d+)/m.exec(await node.info('commandstats'))?.[1] ?? 0);
  return sum;
}

interface Row {
  round: number;
  target: string;
  entriesPerSecond: number;
  p50: number;
  p99: number;
  clientUsPerEntry: number;
  clusterUsPerEntry: number;
  waitsPerPage: number;
}

async function main(): Promise<void> {
  const nodes = process.env['QIM_REDIS_CLUSTER_NODES'] || process.env['QIM_TEST_REDIS_CLUSTER_NODES'];
  if (!nodes)
    throw new Error('QIM_REDIS_CLUSTER_NODES (or QIM_TEST_REDIS_CLUSTER_NODES) must be set: eval "$(tools/infra/infra env)" after infra up redis-cluster');
  const rounds = flag('rounds', 3);
  const pageSize = flag('page', DEFAULT_MAILBOX_PAGE_RECORDS);
  const jsonAt = process.argv.indexOf('--json');
  const targets = [
    await openTarget('acks 0', { QIM_REDIS_CLUSTER_NODES: nodes }),
    await openTarget('acks 1', { QIM_REDIS_CLUSTER_NODES: nodes, QIM_REDIS_MIN_REPLICA_ACKS: '1', QIM_REDIS_REPLICA_WAIT_MS: '1000' }),
  ];
  const raw = (await connectRawRedis(backendConfigFromEnv('redis', { QIM_REDIS_CLUSTER_NODES: nodes }))) as Cluster;
  const all = raw.nodes('all');
  const primaries = raw.nodes('master');
  // 3 × page distinct users per page; the same users every round (their day registered in the warm-up)
  const conversations = Array.from({ length: pageSize * 3 }, () => [rid(), rid(), rid()].sort());
  const pagesPerRound = Math.max(1, Math.floor(1000 / pageSize));
  const roundPages = (): (readonly Id128[])[][] =>
    Array.from({ length: pagesPerRound }, (_, p) => Array.from({ length: pageSize }, (__, i) => conversations[(p * pageSize + i) % conversations.length]!));
  for (const t of targets) for (const users of roundPages()) await t.store.applyPage(page(t, users));
  console.log(
    `# machine: ${cpus().length} CPUs, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(
        ' ',
      )}; node ${process.version}; cluster of ${primaries.length} primaries, ${all.length} nodes; pages of ${pageSize}; ${SECONDS}s per target and round`,
  );
  console.log('round | target | entries/s | apply→visible p50 ms | p99 ms | client CPU µs/entry | cluster CPU µs/entry | WAITs/page');
  const rows: Row[] = [];
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 === 1 ? targets : [...targets].reverse();
    for (const t of order) {
      const pageMs: number[] = [];
      let entries = 0;
      let inside = 0;
      const [cpu0, cluster0, waits0] = [process.cpuUsage(), await clusterCpuUs(all), await waitCalls(primaries)];
      while (inside < SECONDS * 1000) {
        for (const users of roundPages()) {
          const t0 = performance.now();
          entries += (await t.store.applyPage(page(t, users))).entriesWritten;
          const ms = performance.now() - t0;
          pageMs.push(ms);
          inside += ms;
        }
      }
      const cpu = process.cpuUsage(cpu0);
      const [cluster, waits] = [(await clusterCpuUs(all)) - cluster0, (await waitCalls(primaries)) - waits0];
      pageMs.sort((a, b) => a - b);
      const at = (q: number): number => pageMs[Math.min(pageMs.length - 1, Math.floor(q * pageMs.length))] ?? 0;
      const row: Row = {
        round,
        target: t.name,
        entriesPerSecond: entries / (inside / 1000),
        p50: at(0.5),
        p99: at(0.99),
        clientUsPerEntry: (cpu.user + cpu.system) / entries,
        clusterUsPerEntry: cluster / entries,
        waitsPerPage: waits / pageMs.length,
      };
      rows.push(row);
      const cells = [row.entriesPerSecond.toFixed(0), row.p50.toFixed(1), row.p99.toFixed(1), row.clientUsPerEntry.toFixed(1)];
      console.log([round, t.name, ...cells, row.clusterUsPerEntry.toFixed(1), row.waitsPerPage.toFixed(1)].join(' | '));
    }
  }
  console.log(
    `# load after: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  if (jsonAt >= 0) writeFileSync(process.argv[jsonAt + 1]!, JSON.stringify(rows, null, 1));
  for (const t of targets) await t.close();
  await raw.quit();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
