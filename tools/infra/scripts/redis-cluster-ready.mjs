// Readiness probe for the local Redis Cluster (`infra up redis-cluster`). Ready when, on every
// node: CLUSTER INFO says cluster_state:ok with all 16384 slots assigned and ok and all nodes
// known; CLUSTER NODES shows exactly three primaries owning slots, each with one replica, and no
// node flagged fail/fail?; a primary's INFO replication lists an online replica and a replica's
// says master_link_status:up. Then a write and a read through an ioredis Cluster client.
//
// Usage: node redis-cluster-ready.mjs <host:port,host:port,…> <timeoutSeconds>
// Exit 0 when ready, 1 on timeout (the last reason is printed).
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';

const [nodesArg, timeoutArg = '120'] = process.argv.slice(2);
if (!nodesArg) {
  console.error('usage: node redis-cluster-ready.mjs <host:port,…> <timeoutSeconds>');
  process.exit(2);
}
const nodes = nodesArg.split(',').map((hp) => {
  const [host, port] = hp.split(':');
  return { host, port: Number(port) };
});
const deadline = Date.now() + Number(timeoutArg) * 1000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const fields = (text) =>
  Object.fromEntries(
    text
      .split(/\r?\n/)
      .filter((l) => l.includes(':'))
      .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1)]),
  );

/** Throws with the reason when node `n` does not look like a healthy member of a 3 + 3 cluster. */
async function checkNode(n) {
  const name = `${n.host}:${n.port}`;
  const r = new Redis({ ...n, lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 2000, retryStrategy: null });
  r.on('error', () => undefined);
  try {
    await r.connect();
    const info = fields(await r.cluster('INFO'));
    for (const [k, want] of [
      ['cluster_state', 'ok'],
      ['cluster_slots_assigned', '16384'],
      ['cluster_slots_ok', '16384'],
      ['cluster_known_nodes', String(nodes.length)],
    ]) {
      if (info[k] !== want) throw new Error(`${name}: ${k}=${info[k]} (want ${want})`);
    }
    const lines = (await r.cluster('NODES')).trim().split('\n');
    const masters = lines.filter((l) => l.split(' ')[2].split(',').includes('master'));
    const replicas = lines.filter((l) => l.split(' ')[2].split(',').includes('slave'));
    const failing = lines.filter((l) => /(^|,)fail\??(,|$)/.test(l.split(' ')[2]));
    if (failing.length > 0) {
      throw new Error(`${name}: nodes flagged failing: ${failing.map((l) => l.split(' ')[1]).join(' ')}`);
    }
    if (masters.length !== 3 || replicas.length !== 3) {
      throw new Error(`${name}: ${masters.length} primaries and ${replicas.length} replicas (want 3 + 3)`);
    }
    for (const m of masters) {
      const id = m.split(' ')[0];
      if (m.split(' ').length < 9) throw new Error(`${name}: primary ${id} owns no slots`);
      const own = replicas.filter((l) => l.split(' ')[3] === id);
      if (own.length !== 1) throw new Error(`${name}: primary ${id} has ${own.length} replicas (want 1)`);
    }
    const repl = fields(await r.info('replication'));
    if (repl.role === 'master') {
      const online = Object.keys(repl).filter((k) => /^slave\d+$/.test(k) && repl[k].includes('state=online'));
      if (online.length < 1) throw new Error(`${name}: primary with connected_slaves=${repl.connected_slaves}, none online`);
    } else if (repl.master_link_status !== 'up') {
      throw new Error(`${name}: replica with master_link_status=${repl.master_link_status}`);
    }
  } finally {
    r.disconnect();
  }
}

async function roundTrip() {
  const cluster = new Redis.Cluster(nodes, { redisOptions: { connectTimeout: 2000 }, clusterRetryStrategy: () => null });
  cluster.on('error', () => undefined);
  const key = `qim:infra:ready:{${randomUUID()}}`;
  try {
    const value = randomUUID();
    await cluster.set(key, value, 'EX', 60);
    const back = await cluster.get(key);
    if (back !== value) throw new Error(`cluster client read ${back} after writing ${value}`);
    await cluster.del(key);
  } finally {
    cluster.disconnect();
  }
}

let lastError;
while (Date.now() < deadline) {
  try {
    for (const n of nodes) await checkNode(n);
    await roundTrip();
    console.error(`[redis-cluster-ready] ${nodesArg}: cluster ok on every node, write + read through a cluster client`);
    process.exit(0);
  } catch (err) {
    lastError = err;
    await sleep(500);
  }
}
console.error(`[redis-cluster-ready] not ready within ${timeoutArg}s: ${lastError?.message ?? lastError}`);
process.exit(1);
