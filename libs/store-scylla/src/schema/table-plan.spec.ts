import { createKeyspaceCql, isMissingTableMessage } from './dialect';
import { planTable } from './table-plan';
import { qualify } from '../session/keyspace-token';
import { defineTable } from './table-spec';

const spec = defineTable({
  name: 't',
  create: 'CREATE TABLE IF NOT EXISTS {ks}.t (k blob PRIMARY KEY, v bigint, extra bigint)',
  columns: { k: 'blob', v: 'bigint', extra: 'bigint' },
  addable: ['extra'],
});

describe('planTable', () => {
  it('absent table → create', () => {
    expect(planTable(spec, null)).toEqual({ table: 't', create: true, add: [], problems: [] });
  });
  it('complete table → nothing to do; extra columns are tolerated', () => {
    expect(planTable(spec, { k: 'blob', v: 'bigint', extra: 'bigint', other: 'text' })).toEqual({ table: 't', create: false, add: [], problems: [] });
  });
  it('a missing addable column is planned for ALTER TABLE … ADD', () => {
    expect(planTable(spec, { k: 'blob', v: 'bigint' }).add).toEqual([{ column: 'extra', type: 'bigint' }]);
  });
  it('a missing non-addable column or a column of another type is a problem', () => {
    expect(planTable(spec, { k: 'blob', extra: 'bigint' }).problems).toEqual(['t.v is missing and may not be added']);
    expect(planTable(spec, { k: 'blob', v: 'int', extra: 'bigint' }).problems).toEqual(['t.v is int, expected bigint']);
  });
});

describe('table spec and dialect DDL', () => {
  it('qualify replaces every {ks}', () => {
    expect(qualify('SELECT * FROM {ks}.a JOIN {ks}.b', 'ks1')).toBe('SELECT * FROM ks1.a JOIN ks1.b');
    expect(Object.isFrozen(spec.columns)).toBe(true);
  });
  it('ScyllaDB keyspaces disable tablets; Cassandra gets no tablets clause', () => {
    expect(createKeyspaceCql('qim', 'dc1', 3, 'scylla')).toBe(
      "CREATE KEYSPACE IF NOT EXISTS qim WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 3} AND tablets = {'enabled': false}",
    );
    expect(createKeyspaceCql('qim', 'dc1', 3, 'cassandra')).toBe(
      "CREATE KEYSPACE IF NOT EXISTS qim WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 3}",
    );
    expect(createKeyspaceCql('qim', "o'dc", 1, 'cassandra')).toContain("'o''dc': 1");
  });
  it('recognises the server saying a table does not exist', () => {
    expect(isMissingTableMessage('table scylla_keyspaces does not exist', 'scylla_keyspaces')).toBe(true);
    expect(isMissingTableMessage('unconfigured table scylla_keyspaces', 'scylla_keyspaces')).toBe(true);
    expect(isMissingTableMessage('table other does not exist', 'scylla_keyspaces')).toBe(false);
    expect(isMissingTableMessage('Cannot achieve consistency level', 'scylla_keyspaces')).toBe(false);
  });
});
