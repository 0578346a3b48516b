import { errors, types } from 'cassandra-driver';
import type { Client } from 'cassandra-driver';
import { developmentScyllaConfig } from '../config/scylla-config';
import type { ScyllaSession } from '../session/scylla-session';
import { defineTable } from '../schema/table-spec';
import { checkReadiness } from './readiness';

/**
 * Readiness over a scripted client (the cases a single local Cassandra node cannot show: ScyllaDB
 * tablets, nodes down, another DC). The live gate (`migrate-gate.spec.ts`) covers the real server.
 */
const table = defineTable({
  name: 't',
  create: 'CREATE TABLE IF NOT EXISTS {ks}.t (k blob PRIMARY KEY, v bigint)',
  columns: { k: 'blob', v: 'bigint' },
  addable: [],
});
const config = developmentScyllaConfig({ contactPoints: ['h1'], keyspace: 'ks', localDataCenter: 'dc1', replicationFactor: 3 });

interface Script {
  scylla: Record<string, unknown>[] | 'absent';
  replication: Record<string, string> | null;
  columns: Record<string, string>;
  hosts: { datacenter: string; up: boolean }[];
  /** Names `system_schema.tables` lists for the keyspace. */
  tables?: string[];
  fail?: boolean;
}

function session(s: Script): ScyllaSession {
  const execute = async (cql: string) => {
    if (s.fail) throw new Error('server gone');
    if (cql.includes('scylla_keyspaces')) {
      if (s.scylla === 'absent') throw new errors.ResponseError(types.responseErrorCodes.invalid, 'table scylla_keyspaces does not exist');
      return { rows: s.scylla };
    }
    if (cql.includes('system_schema.keyspaces')) return { rows: s.replication === null ? [] : [{ replication: s.replication }] };
    if (cql.includes('system_schema.tables')) return { rows: (s.tables ?? ['t']).map((table_name) => ({ table_name })) };
    if (cql.includes('system_schema.columns')) return { rows: Object.entries(s.columns).map(([column_name, type]) => ({ column_name, type })) };
    throw new Error(`unexpected ${cql}`);
  };
  const hosts = s.hosts.map((h) => ({ datacenter: h.datacenter, isUp: () => h.up }));
  const client = { execute, hosts: { values: () => hosts } } as unknown as Client;
  return { client, config, close: async () => undefined };
}

const healthy: Script = {
  scylla: [],
  replication: { class: 'NetworkTopologyStrategy', dc1: '3' },
  columns: { k: 'blob', v: 'bigint' },
  hosts: [1, 2, 3].map(() => ({ datacenter: 'dc1', up: true })),
};

describe('checkReadiness', () => {
  it('green only when keyspace, RF, tablets, columns and local-DC quorum all check out; each check is listed', async () => {
    expect(await checkReadiness(session(healthy), [table])).toEqual({
      ready: true,
      dialect: 'scylla',
      problems: [],
      checks: [
        { check: 'keyspace ks', problems: [] },
        { check: 'keyspace ks holds no lane-watermark layout table', problems: [] },
        { check: 'table t', problems: [] },
        { check: 'data center dc1 nodes for LOCAL_QUORUM of RF 3', problems: [] },
      ],
    });
  });

  it('files each problem under its check; a missing keyspace skips the table checks', async () => {
    const wrongType = await checkReadiness(session({ ...healthy, columns: { k: 'blob', v: 'int' } }), [table]);
    expect(wrongType.checks.find((c) => c.check === 'table t')?.problems).toEqual(['t.v is int, expected bigint']);
    expect(wrongType.problems).toEqual(['t.v is int, expected bigint']);
    const absent = await checkReadiness(session({ ...healthy, replication: null }), [table]);
    expect(absent.checks.map((c) => c.check)).toEqual(['keyspace ks', 'data center dc1 nodes for LOCAL_QUORUM of RF 3']);
  });

  it.each<[string, Partial<Script>, RegExp]>([
    ['missing keyspace', { replication: null }, /keyspace ks does not exist/],
    ['wrong RF', { replication: { class: 'NetworkTopologyStrategy', dc1: '1' } }, /replication factor of "dc1" is 1, expected 3/],
    ['wrong DC', { replication: { class: 'NetworkTopologyStrategy', dc2: '3' } }, /not replicated to data center "dc1"/],
    ['tablets on ScyllaDB', { scylla: [{ keyspace_name: 'ks', storage_type: 'tablets', initial_tablets: 8 }] }, /only 'vnodes' is accepted/],
    ['a null storage_type', { scylla: [{ keyspace_name: 'ks', storage_type: null }] }, /storage_type is null/],
    ['a missing table', { columns: {} }, /table t does not exist/],
    ['a column of another type', { columns: { k: 'blob', v: 'int' } }, /t\.v is int, expected bigint/],
    [
      'no LOCAL_QUORUM in the local DC',
      {
        hosts: [
          { datacenter: 'dc1', up: true },
          { datacenter: 'dc1', up: false },
          { datacenter: 'dc1', up: false },
        ],
      },
      /1 node\(s\) up/,
    ],
    [
      'the local DC has fewer nodes than RF',
      {
        hosts: [
          { datacenter: 'dc1', up: true },
          { datacenter: 'dc2', up: true },
        ],
      },
      /fewer than RF 3/,
    ],
    ['a failing server', { fail: true }, /readiness query failed/],
    [
      'a table of the lane-watermark layout',
      { tables: ['t', 'lane_watermark'] },
      /has lane_watermark, created by the lane-watermark layout — deploy the frontier layout in a new keyspace/,
    ],
  ])('not green: %s', async (_name, change, problem) => {
    const report = await checkReadiness(session({ ...healthy, ...change }), [table]);
    expect(report.ready).toBe(false);
    expect(report.problems.join('\n')).toMatch(problem);
  });

  it('on Apache Cassandra (no scylla_keyspaces table) the tablets check passes', async () => {
    expect(await checkReadiness(session({ ...healthy, scylla: 'absent' }), [table])).toMatchObject({ ready: true, dialect: 'cassandra', problems: [] });
  });
});
