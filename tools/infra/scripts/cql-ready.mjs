// Readiness probe for one Cassandra node: succeeds once `SELECT release_version FROM
// system.local` answers *on that node* (an allow-list policy keeps the driver from routing the
// query to another node of a cluster).
//
// Usage: node cql-ready.mjs <host:port> <timeoutSeconds> [--peers N]
//   --peers N  also wait until the node lists N rows in system.peers (the ring is complete).
// Exit 0 when ready, 1 on timeout (the last error is printed).
import cassandra from 'cassandra-driver';

const [addr, timeoutArg = '120', ...rest] = process.argv.slice(2);
if (!addr || !addr.includes(':')) {
  console.error('usage: node cql-ready.mjs <host:port> <timeoutSeconds> [--peers N]');
  process.exit(2);
}
const [host, portText] = addr.split(':');
const port = Number(portText);
const peersIdx = rest.indexOf('--peers');
const wantPeers = peersIdx >= 0 ? Number(rest[peersIdx + 1]) : 0;
const deadline = Date.now() + Number(timeoutArg) * 1000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function probe() {
  const { loadBalancing } = cassandra.policies;
  const client = new cassandra.Client({
    contactPoints: [host],
    localDataCenter: 'datacenter1',
    protocolOptions: { port },
    policies: {
      loadBalancing: new loadBalancing.AllowListPolicy(new loadBalancing.DCAwareRoundRobinPolicy('datacenter1'), [`${host}:${port}`]),
    },
    socketOptions: { connectTimeout: 5000, readTimeout: 15000 },
  });
  try {
    await client.connect();
    const local = await client.execute('SELECT release_version FROM system.local');
    const version = local.first()?.release_version;
    if (wantPeers > 0) {
      const peers = await client.execute('SELECT peer FROM system.peers');
      if (peers.rowLength < wantPeers) {
        throw new Error(`${addr} lists ${peers.rowLength} of ${wantPeers} peers`);
      }
    }
    return version;
  } finally {
    await client.shutdown().catch(() => undefined);
  }
}

let lastError;
while (Date.now() < deadline) {
  try {
    const version = await probe();
    console.error(`[cql-ready] ${addr} answers CQL (Cassandra ${version})`);
    process.exit(0);
  } catch (err) {
    lastError = err;
    await sleep(1000);
  }
}
console.error(`[cql-ready] ${addr} not ready within ${timeoutArg}s: ${lastError?.message ?? lastError}`);
process.exit(1);
