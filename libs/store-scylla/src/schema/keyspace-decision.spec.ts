import { decideKeyspace } from './keyspace-decision';
import type { ScyllaKeyspacesFact } from './keyspace-decision';

const target = { dataCenter: 'dc1', replicationFactor: 3 };
const nts = (extra: Record<string, string>) => ({ class: 'org.apache.cassandra.locator.NetworkTopologyStrategy', ...extra });
const cassandra: ScyllaKeyspacesFact = { kind: 'table-absent' };
const row = (storageType: string | null, initialTablets: number | null = null): ScyllaKeyspacesFact => ({ kind: 'row', storageType, initialTablets });

describe('decideKeyspace (pure: schema rows → accept / reject)', () => {
  it('absent keyspace → absent (migrate creates it; readiness is not green)', () => {
    expect(decideKeyspace(null, cassandra, target)).toEqual({ verdict: 'absent' });
    expect(decideKeyspace(null, { kind: 'no-row' }, target)).toEqual({ verdict: 'absent' });
  });

  describe('ScyllaDB (system_schema.scylla_keyspaces exists)', () => {
    it('no row for the keyspace = vnodes (Scylla 6.2 semantics) → accept', () => {
      expect(decideKeyspace(nts({ dc1: '3' }), { kind: 'no-row' }, target)).toEqual({ verdict: 'accept' });
    });
    it("a row with storage_type 'vnodes' → accept", () => {
      expect(decideKeyspace(nts({ dc1: '3' }), row('vnodes'), target)).toEqual({ verdict: 'accept' });
    });
    it.each([
      ['tablets', row('tablets')],
      ['null', row(null)],
      ['an unknown value', row('something_new')],
      ['a different case', row('VNODES')],
      ['vnodes but initial_tablets set', row('vnodes', 8)],
    ])('a row with storage_type %s → reject', (_name, fact) => {
      const d = decideKeyspace(nts({ dc1: '3' }), fact, target);
      expect(d.verdict).toBe('reject');
    });
  });

  describe('Apache Cassandra (no scylla_keyspaces table, no tablets)', () => {
    it('table absent → the tablets check passes', () => {
      expect(decideKeyspace(nts({ dc1: '3' }), cassandra, target)).toEqual({ verdict: 'accept' });
    });
    it('short class name is accepted too', () => {
      expect(decideKeyspace({ class: 'NetworkTopologyStrategy', dc1: '3' }, cassandra, target)).toEqual({ verdict: 'accept' });
    });
  });

  it('other data centers may exist beside the target one', () => {
    expect(decideKeyspace(nts({ dc1: '3', dc2: '5' }), cassandra, target)).toEqual({ verdict: 'accept' });
  });

  it.each([
    ['another RF in the target DC', nts({ dc1: '1' }), /replication factor of "dc1" is 1, expected 3/],
    ['the keyspace is not replicated to the target DC', nts({ dc2: '3' }), /not replicated to data center "dc1"/],
    ['SimpleStrategy', { class: 'org.apache.cassandra.locator.SimpleStrategy', replication_factor: '3' }, /expected NetworkTopologyStrategy/],
    ['a non-numeric RF', nts({ dc1: 'x' }), /replication factor/],
  ])('reject: %s', (_name, replication, reason) => {
    const d = decideKeyspace(replication, cassandra, target);
    expect(d.verdict).toBe('reject');
    expect(d.verdict === 'reject' && d.reasons.join('; ')).toMatch(reason);
  });

  it('reports every reason at once', () => {
    const d = decideKeyspace(nts({ dc1: '1' }), row('tablets'), target);
    expect(d.verdict === 'reject' && d.reasons).toHaveLength(2);
  });
});
