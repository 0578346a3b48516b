import { randomUUID } from 'node:crypto';
import cassandra from 'cassandra-driver';
import { hostPort, requireEnv } from './env';

const { consistencies } = cassandra.types;

// Read at module load so a missing variable fails the suite instead of skipping it.
const addr = hostPort('QIM_TEST_SCYLLA_ADDR');
const dc = requireEnv('QIM_TEST_SCYLLA_DC');
const rf = Number(requireEnv('QIM_TEST_SCYLLA_RF'));
// A keyspace of our own beside the store's, so the smoke test never touches store tables.
const keyspace = `${requireEnv('QIM_TEST_SCYLLA_KEYSPACE')}_infra_smoke`;

jest.setTimeout(120_000);

describe('Cassandra smoke (real server at QIM_TEST_SCYLLA_ADDR)', () => {
  let client: cassandra.Client;

  beforeAll(async () => {
    client = new cassandra.Client({
      contactPoints: [addr.host],
      protocolOptions: { port: addr.port },
      localDataCenter: dc,
      // Schema changes wait for agreement; give them room on a busy 2-core machine.
      socketOptions: { readTimeout: 60_000 },
    });
    await client.connect();
    await client.execute(`CREATE KEYSPACE IF NOT EXISTS ${keyspace} WITH replication = ` + `{'class': 'NetworkTopologyStrategy', '${dc}': ${rf}}`);
    await client.execute(`CREATE TABLE IF NOT EXISTS ${keyspace}.lwt (id text PRIMARY KEY, owner text)`);
    await client.execute(`CREATE TABLE IF NOT EXISTS ${keyspace}.ttl (id text PRIMARY KEY, v text)`);
  });

  afterAll(async () => {
    await client?.shutdown();
  });

  it('applies INSERT … IF NOT EXISTS once, then reports [applied]=false at LOCAL_SERIAL', async () => {
    const id = randomUUID();
    const insert = `INSERT INTO ${keyspace}.lwt (id, owner) VALUES (?, ?) IF NOT EXISTS`;
    const options = {
      prepare: true,
      consistency: consistencies.localQuorum,
      serialConsistency: consistencies.localSerial,
    };

    const first = await client.execute(insert, [id, 'first'], options);
    expect(first.first()['[applied]']).toBe(true);

    const second = await client.execute(insert, [id, 'second'], options);
    expect(second.first()['[applied]']).toBe(false);
    // Cassandra returns the existing row with a rejected conditional insert.
    expect(second.first()['owner']).toBe('first');

    const read = await client.execute(`SELECT owner FROM ${keyspace}.lwt WHERE id = ?`, [id], {
      prepare: true,
      consistency: consistencies.localSerial,
    });
    expect(read.first()['owner']).toBe('first');
  });

  it('reports a positive TTL(col) no larger than the one written with USING TTL', async () => {
    const id = randomUUID();
    const ttl = 300;
    await client.execute(`INSERT INTO ${keyspace}.ttl (id, v) VALUES (?, ?) USING TTL ?`, [id, 'x', ttl], {
      prepare: true,
      consistency: consistencies.localQuorum,
    });
    const rs = await client.execute(`SELECT TTL(v) AS t FROM ${keyspace}.ttl WHERE id = ?`, [id], {
      prepare: true,
      consistency: consistencies.localQuorum,
    });
    const remaining = rs.first()['t'] as number;
    expect(remaining).toBeGreaterThan(0);
    expect(remaining).toBeLessThanOrEqual(ttl);
  });
});
