// Fault demonstration on the local 3-node Cassandra cluster (RF 3, one DC):
//   all up        -> a LOCAL_QUORUM write and an LWT at LOCAL_SERIAL succeed
//   1 node down   -> both still succeed (2 of 3 replicas are a quorum)
//   2 nodes down  -> both fail with UNAVAILABLE (the coordinator knows quorum is impossible)
//   nodes back    -> both succeed again, and a read at ALL sees every row written meanwhile
// Nodes are crashed with kill -9 by pid and restarted through `tools/infra/infra cassandra3-node`.
//
// Run it through `tools/infra/infra demo-3node`, which starts the cluster first.
// Usage: QIM_INFRA_CLI=tools/infra/infra node tools/infra/demo-3node.mjs [host:port]
// Exits non-zero if any expectation fails.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import cassandra from 'cassandra-driver';

const here = dirname(fileURLToPath(import.meta.url));
const cli = process.env.QIM_INFRA_CLI ?? join(here, 'infra');
const [contact = '127.0.0.1:9043'] = process.argv.slice(2);
const [contactHost, portText] = contact.split(':');
const port = Number(portText);
const KEYSPACE = 'qim_infra_demo3';
const { consistencies, responseErrorCodes } = cassandra.types;
// A node that died without saying goodbye is only "down" for the survivors once their failure
// detector convicts it (phi accrual, typically 10-20 s); until then requests to it time out
// instead of being refused as UNAVAILABLE. Each expectation is therefore polled up to this long.
const CONVERGE_MS = 120_000;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const t0 = Date.now();
const stamp = () => `+${((Date.now() - t0) / 1000).toFixed(1).padStart(6)}s`;
const say = (msg) => console.log(`[demo-3node ${stamp()}] ${msg}`);
const failures = [];

function infra(...args) {
  say(`$ tools/infra/infra ${args.join(' ')}`);
  execFileSync(cli, args, { stdio: ['ignore', 'ignore', 'inherit'] });
}

const client = new cassandra.Client({
  contactPoints: [contactHost, '127.0.0.2', '127.0.0.3'].filter((h, i, a) => a.indexOf(h) === i),
  protocolOptions: { port },
  localDataCenter: 'datacenter1',
  // Surface each coordinator's answer as is: the default policy would retry UNAVAILABLE on
  // another host and report NoHostAvailable instead.
  policies: {
    retry: new cassandra.policies.retry.FallthroughRetryPolicy(),
    reconnection: new cassandra.policies.reconnection.ConstantReconnectionPolicy(1000),
  },
  socketOptions: { connectTimeout: 5000, readTimeout: 20_000 },
});

const write = (id, v) =>
  client.execute(`INSERT INTO ${KEYSPACE}.kv (id, v) VALUES (?, ?)`, [id, v], {
    prepare: true,
    consistency: consistencies.localQuorum,
  });

async function lwt(id, v) {
  const rs = await client.execute(`INSERT INTO ${KEYSPACE}.kv (id, v) VALUES (?, ?) IF NOT EXISTS`, [id, v], {
    prepare: true,
    consistency: consistencies.localQuorum,
    serialConsistency: consistencies.localSerial,
  });
  if (rs.first()['[applied]'] !== true) throw new Error(`LWT on fresh key ${id} not applied`);
}

const describeError = (err) =>
  err?.code === responseErrorCodes.unavailableException
    ? `UNAVAILABLE: ${err.message}`
    : `${err?.name ?? 'Error'}${err?.code !== undefined ? ` (code 0x${err.code.toString(16)})` : ''}: ${err?.message}`;

/** Polls `op` until it succeeds; records a failure if it never does within CONVERGE_MS. */
async function expectSuccess(label, op) {
  const deadline = Date.now() + CONVERGE_MS;
  let last;
  while (Date.now() < deadline) {
    try {
      await op();
      say(`  ok   ${label}: succeeded`);
      return;
    } catch (err) {
      last = err;
      say(`  ..   ${label}: ${describeError(err)} (cluster still converging; retrying)`);
      await sleep(2000);
    }
  }
  failures.push(`${label}: expected success, last error ${describeError(last)}`);
  say(`  FAIL ${label}: never succeeded`);
}

/**
 * Polls `op` until it fails with UNAVAILABLE. A success is an immediate failure of the demo
 * (a quorum write with one live replica must never succeed); timeouts are retried while the
 * coordinator's failure detector has not yet convicted the killed nodes.
 */
async function expectUnavailable(label, op) {
  const deadline = Date.now() + CONVERGE_MS;
  let last;
  while (Date.now() < deadline) {
    try {
      await op();
      failures.push(`${label}: succeeded although a quorum is impossible`);
      say(`  FAIL ${label}: succeeded with 2 of 3 replicas down`);
      return;
    } catch (err) {
      last = err;
      if (err?.code === responseErrorCodes.unavailableException) {
        say(`  ok   ${label}: refused, ${describeError(err)}`);
        return;
      }
      say(`  ..   ${label}: ${describeError(err)} (failure detector has not convicted yet; retrying)`);
      await sleep(2000);
    }
  }
  failures.push(`${label}: expected UNAVAILABLE, last error ${describeError(last)}`);
  say(`  FAIL ${label}: never refused with UNAVAILABLE`);
}

/** Waits until the driver's own view has `n` hosts up (it learns of kills and restarts). */
async function driverSeesUp(n) {
  const deadline = Date.now() + CONVERGE_MS;
  for (;;) {
    const up = client.hosts.values().filter((h) => h.isUp()).length;
    if (up === n) return;
    if (Date.now() > deadline) throw new Error(`driver sees ${up} hosts up, expected ${n}`);
    await sleep(500);
  }
}

const killed = [];
async function main() {
  await client.connect();
  say(`connected to ${contact}; hosts: ${client.hosts.keys().join(', ')}`);
  await client.execute(`CREATE KEYSPACE IF NOT EXISTS ${KEYSPACE} WITH replication = {'class': 'NetworkTopologyStrategy', 'datacenter1': 3}`);
  await client.execute(`CREATE TABLE IF NOT EXISTS ${KEYSPACE}.kv (id text PRIMARY KEY, v text)`);
  say(`keyspace ${KEYSPACE}: NetworkTopologyStrategy {datacenter1: 3}`);
  const run = randomUUID().slice(0, 8);
  const written = [];
  const step = async (name, expect) => {
    const w = `${run}-${name}-w`;
    const l = `${run}-${name}-lwt`;
    await expect(`LOCAL_QUORUM write (${name})`, () => write(w, name));
    await expect(`LWT IF NOT EXISTS at LOCAL_SERIAL (${name})`, () => lwt(l, name));
    if (expect === expectSuccess) written.push(w, l);
  };

  say('step 1: all three nodes up');
  await driverSeesUp(3);
  await step('all-up', expectSuccess);

  say('step 2: node 3 crashed (kill -9)');
  infra('cassandra3-node', 'kill', '3');
  killed.push(3);
  await driverSeesUp(2);
  await step('one-down', expectSuccess);

  say('step 3: node 2 crashed as well (kill -9); only node 1 left');
  infra('cassandra3-node', 'kill', '2');
  killed.push(2);
  await driverSeesUp(1);
  await step('two-down', expectUnavailable);

  say('step 4: nodes 2 and 3 restarted');
  while (killed.length > 0) infra('cassandra3-node', 'start', String(killed.pop()));
  await driverSeesUp(3);
  await step('back', expectSuccess);

  // Every replica must answer a read at ALL, and each row written along the way is there.
  await expectSuccess(`read at ALL of the ${written.length} rows written while nodes were up or down`, async () => {
    for (const id of written) {
      const rs = await client.execute(`SELECT v FROM ${KEYSPACE}.kv WHERE id = ?`, [id], {
        prepare: true,
        consistency: consistencies.all,
      });
      if (rs.rowLength !== 1) throw new Error(`row ${id} missing`);
    }
  });
}

try {
  await main();
} catch (err) {
  failures.push(`unexpected error: ${err?.stack ?? err}`);
} finally {
  // Never leave the cluster half dead, whatever happened above.
  for (const n of killed) {
    try {
      infra('cassandra3-node', 'start', String(n));
    } catch (err) {
      failures.push(`restarting node ${n}: ${err?.message ?? err}`);
    }
  }
  await client.shutdown().catch(() => undefined);
}

if (failures.length > 0) {
  say(`FAILED (${failures.length}):`);
  for (const f of failures) say(`  - ${f}`);
  process.exit(1);
}
say('PASSED: quorum writes and LWTs survive one node down, are refused as UNAVAILABLE with two down, and work again once the nodes are back');
