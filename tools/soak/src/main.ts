import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { BackendKind } from './backends';
import { openMemory, openRedis, openScylla } from './backends';
import type { ConfigOfKind } from '@qim/backends/testing';
import { backendConfigFromEnv } from '@qim/backends/testing';
import { storageTable } from './report';
import type { OpenBackend, SoakPlan, SoakResult, SoakSabotage } from './soak';
import { describeLifetimes, runSoak } from './soak';

const USAGE = `usage: tools/soak/run --backend memory|redis|scylla|all [--days N] [--short] [--seed N] [--keep] [--redis-db N] [--sabotage KIND] [--out DIR]
  --short             CI form: 10 simulated days (unless --days), smaller load, retention 3 days
  --days N            simulated days per backend (full run: ≥ 45; default 45, --short 10)
  --seed N            load generator seed (default 1): a run is repeatable
  --keep              leave the soak's Redis keys / Cassandra keyspace in place afterwards
  --redis-db N        Redis logical database of the soak (default 7; ignored when QIM_REDIS_URL names one, and on a cluster)
  --sabotage KIND     the run must FAIL: drop-entry | double-entry (the soak's devices lose / double every 400th entry),
                      epoch-bump (at the mid-run mailbox epoch bump the devices jump to the new epoch's start),
                      retention-decrease (after it, devices read on from a CURSOR_EXPIRED's boundary without resyncing),
                      lost-writes (redis: when Redis loses the mailbox's last writes, the shard frontiers stay over the lost entries)
  --out DIR           where the table, JSON and chart go (default .infra/soak)
Redis and Cassandra from the environment: eval "$(tools/infra/infra env)" (QIM_REDIS_URL, QIM_TEST_SCYLLA_ADDR, QIM_TEST_SCYLLA_DC).
A Redis Cluster as the services take one: QIM_REDIS_CLUSTER_NODES=host:port,… instead of QIM_REDIS_URL (same parsing and rules).`;

interface Args {
  readonly backends: BackendKind[];
  readonly days: number;
  readonly short: boolean;
  readonly seed: number;
  readonly keep: boolean;
  readonly redisDb: number;
  readonly sabotage: SoakSabotage | null;
  readonly out: string;
}

const SABOTAGES: readonly SoakSabotage[] = ['drop-entry', 'double-entry', 'epoch-bump', 'retention-decrease', 'lost-writes'];

function parseArgs(argv: readonly string[]): Args {
  let backend: string | null = null;
  let days: number | null = null;
  let short = false;
  let seed = 1;
  let keep = false;
  let redisDb = 7;
  let sabotage: Args['sabotage'] = null;
  let out = '.infra/soak';
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value\n${USAGE}`);
      return v;
    };
    const int = (v: string, min: number): number => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < min) throw new Error(`${a} must be an integer ≥ ${min}: ${v}`);
      return n;
    };
    if (a === '--backend') backend = value();
    else if (a === '--days') days = int(value(), 1);
    else if (a === '--short') short = true;
    else if (a === '--seed') seed = int(value(), 0);
    else if (a === '--keep') keep = true;
    else if (a === '--redis-db') redisDb = int(value(), 0);
    else if (a === '--sabotage') {
      const v = value();
      if (!(SABOTAGES as readonly string[]).includes(v)) throw new Error(`--sabotage must be one of ${SABOTAGES.join(', ')}: ${v}`);
      sabotage = v as SoakSabotage;
    } else if (a === '--out') out = value();
    else if (a === '--help' || a === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else throw new Error(`unknown argument ${a}\n${USAGE}`);
  }
  const all: BackendKind[] = ['memory', 'redis', 'scylla'];
  if (backend === null) throw new Error(`--backend is required\n${USAGE}`);
  if (backend !== 'all' && !all.includes(backend as BackendKind)) throw new Error(`--backend must be memory, redis, scylla or all: ${backend}`);
  return {
    backends: backend === 'all' ? all : [backend as BackendKind],
    days: days ?? (short ? 10 : 45),
    short,
    seed,
    keep,
    redisDb,
    sabotage,
    out,
  };
}

function planFor(backend: BackendKind, a: Args): SoakPlan {
  const retentionDays = a.short ? 3 : 7;
  return {
    backend,
    days: a.days,
    retentionDays,
    dedupeDays: retentionDays + 1,
    ephemeralDays: 1,
    users: a.short ? 40 : 80,
    conversations: a.short ? 12 : 24,
    shards: 8,
    sendsPerDay: backend === 'scylla' ? (a.short ? 120 : 200) : a.short ? 200 : 300,
    seed: a.seed,
    // the mailbox epoch bump, at noon of the middle day (short run included)
    epochBumpDay: Math.max(1, Math.ceil(a.days / 2)),
    // a retention decrease by one day on one of two sets of stores, both running from a third of the run
    // redis: the mailbox's writes of the last hour of a day lost, after the devices read them
    lostWritesDay: Math.max(1, Math.ceil(a.days * 0.7)),
    retentionDecrease: { fromDay: Math.max(1, Math.floor(a.days / 3)), toDays: retentionDays - 1 },
    ...(a.sabotage ? { sabotage: a.sabotage } : {}),
  };
}

/**
 * The soak's Redis, read from the services' variables with their rules (`QIM_REDIS_URL`, or
 * `QIM_REDIS_CLUSTER_NODES` for a Redis Cluster, never both; `QIM_REDIS_MIN_REPLICA_ACKS`), under the
 * soak's own namespace. A standalone server: its own logical database (default 7) unless the URL
 * names one, so the census's SCAN walks the soak's keys, not every key other tests left in database
 * 0. A cluster has database 0 only: the census scans the soak's namespace on every primary.
 */
function redisConfig(db: number, namespace: string): ConfigOfKind<'redis'> {
  const cfg = backendConfigFromEnv('redis');
  if (typeof cfg.redisUrl !== 'string') return { ...cfg, namespace };
  const u = new URL(cfg.redisUrl);
  if (u.protocol === 'unix:' || (u.pathname !== '' && u.pathname !== '/')) return { ...cfg, namespace };
  u.pathname = `/${db}`;
  return { ...cfg, redisUrl: u.toString(), namespace };
}

function env(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run eval "$(tools/infra/infra env)" first`);
  return v;
}

async function main(): Promise<number> {
  const a = parseArgs(process.argv.slice(2));
  const stamp = new Date().toISOString().replace(/[-:]/g, '').slice(0, 15);
  const results: SoakResult[] = [];
  console.log('== QIM soak: real store + worker code over simulated days ==');
  console.log('Kafka is replaced by an in-process ordered log (messages topic → router → dispatch topic → shard worker,');
  console.log("page by page, offsets committed behind each page; 3% of pages redelivered). Kafka faults are the drills' subject.");
  for (const backend of a.backends) {
    const plan = planFor(backend, a);
    console.log(
      `\n-- ${backend}: ${plan.days} simulated days, ${plan.users} users, ${plan.conversations} conversations, ` +
        `${plan.sendsPerDay} sends/day, ${plan.shards} shards, seed ${plan.seed}`,
    );
    for (const [k, v] of Object.entries(describeLifetimes(plan))) console.log(`   ${k}: ${v}`);
    const tag = `${process.pid}_${stamp.replace('T', '_')}`;
    const open: OpenBackend =
      backend === 'memory'
        ? (clock, life) => openMemory(clock, life)
        : backend === 'redis'
          ? (clock, life) => openRedis(redisConfig(a.redisDb, `qim_soak_${tag}`), clock, life, a.keep)
          : (clock, life, dispatchCreatedAt) =>
              openScylla(
                {
                  kind: 'scylla',
                  hosts: [env('QIM_TEST_SCYLLA_ADDR')],
                  localDataCenter: process.env['QIM_TEST_SCYLLA_DC'] ?? 'datacenter1',
                  keyspace: `qim_soak_${process.pid}`,
                  replicationFactor: 1,
                },
                clock,
                life,
                dispatchCreatedAt,
                a.keep,
              );
    let result: SoakResult;
    try {
      result = await runSoak(plan, open, (line) => console.log(`   ${line}`));
    } catch (err) {
      console.log(`FAIL ${backend}: the soak itself stopped: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      return 1;
    }
    results.push(result);
    console.log(storageTable(result));
    const t = result.totals;
    console.log(
      `   ${backend} totals: acked ${t['acked']}, replays ${t['replays']}, publish failures ${t['publishFailures']} ` +
        `(recovered by the loop ${t['recovered']}), syncs ${t['syncs']}, CURSOR_EXPIRED ${t['cursorExpired']}, EPOCH_MISMATCH ${t['epochMismatch']}, ` +
        `router redeliveries ${t['routerRedeliveries']}, shard redeliveries ${t['shardRedeliveries']}, ` +
        `housekeeping reclaimed ${t['housekeepingReclaimed']}, membership changes ${t['membershipChanges']}`,
    );
    console.log(
      `   wall ms by phase: ${Object.entries(t)
        .filter(([k]) => k.startsWith('wallMs.'))
        .map(([k, v]) => `${k.slice(7)} ${v}`)
        .join(', ')}`,
    );
    const failures = Object.entries(t).filter(([k]) => k.endsWith('Failures') && k !== 'publishFailures');
    if (failures.length > 0) console.log(`   loop failures (not in a row): ${failures.map(([k, v]) => `${k} ${v}`).join(', ')}`);
    console.log(
      `   ${result.violations.length === 0 ? 'PASS' : 'FAIL'} ${backend}: ${result.violations.length} violation(s), ${result.wallSeconds.toFixed(1)} s wall`,
    );
    for (const v of result.violations.slice(0, 40)) console.log(`   FAIL ${backend}: ${v}`);
    if (result.violations.length > 40) console.log(`   … ${result.violations.length - 40} more`);
  }
  const out = resolve(a.out);
  mkdirSync(out, { recursive: true });
  const base = join(out, `soak-${a.backends.join('-')}${a.short ? '-short' : ''}`);
  const json = JSON.stringify(results, (_, v) => (typeof v === 'bigint' ? v.toString() : v), 2);
  writeFileSync(`${base}.json`, json);
  writeFileSync(`${base}.txt`, results.map((r) => storageTable(r)).join('\n\n') + '\n');
  try {
    execFileSync(existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3', [resolve('tools/soak/plot.py'), `${base}.json`, `${base}.png`], {
      stdio: 'inherit',
    });
    console.log(`\nwrote ${base}.txt, ${base}.json, ${base}.png`);
  } catch (err) {
    console.log(`FAIL chart: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
  const failed = results.filter((r) => r.violations.length > 0).map((r) => r.backend);
  const wall = results.map((r) => `${r.backend} ${r.wallSeconds.toFixed(0)} s`).join(', ');
  if (failed.length > 0) {
    console.log(`FAIL: soak violations on ${failed.join(', ')} (${wall})`);
    return 1;
  }
  console.log(`PASS: soak on ${results.map((r) => r.backend).join(', ')}, ${a.days} simulated days each (${wall})`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`FAIL: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(2);
  },
);
