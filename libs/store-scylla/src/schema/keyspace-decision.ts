/**
 * Pure decision over an existing keyspace's schema rows: may the backend use it as it is? The
 * backend never alters a keyspace, so anything but an exact match is a refusal.
 *
 * Rules (seed "配置与一致性", migrate step 1):
 * 1. `system_schema.keyspaces.replication` must be NetworkTopologyStrategy with exactly the target
 *    RF for the target DC (other DCs may exist; they are not ours to judge).
 * 2. `system_schema.scylla_keyspaces` (ScyllaDB only):
 *    - table absent → Apache Cassandra: no tablets exist, the check passes;
 *    - no row for the keyspace → vnodes (ScyllaDB 6.2 shows no row for a vnodes keyspace): passes;
 *    - a row → accepted only with `storage_type = 'vnodes'` and no `initial_tablets`;
 *      null, `tablets` or any unknown value → refusal (LWT needs vnodes).
 */

/** What the server says about `system_schema.scylla_keyspaces` for the keyspace. */
export type ScyllaKeyspacesFact =
  | { readonly kind: 'table-absent' }
  | { readonly kind: 'no-row' }
  | { readonly kind: 'row'; readonly storageType: string | null; readonly initialTablets: number | null };

/** The replication map of `system_schema.keyspaces`, or null when the keyspace does not exist. */
export type ReplicationFact = Readonly<Record<string, string>> | null;

export interface KeyspaceTarget {
  readonly dataCenter: string;
  readonly replicationFactor: number;
}

export type KeyspaceDecision =
  { readonly verdict: 'absent' } | { readonly verdict: 'accept' } | { readonly verdict: 'reject'; readonly reasons: readonly string[] };

const NTS = /(^|\.)NetworkTopologyStrategy$/;

/** Checks the replication map against the target DC and RF; returns the reasons it does not match. */
export function replicationProblems(replication: Readonly<Record<string, string>>, target: KeyspaceTarget): string[] {
  const reasons: string[] = [];
  const cls = replication['class'] ?? '';
  if (!NTS.test(cls)) reasons.push(`replication class is ${JSON.stringify(cls)}, expected NetworkTopologyStrategy`);
  const rf = replication[target.dataCenter];
  if (rf === undefined) {
    const dcs = Object.keys(replication).filter((k) => k !== 'class');
    reasons.push(`keyspace is not replicated to data center ${JSON.stringify(target.dataCenter)} (it is replicated to ${JSON.stringify(dcs)})`);
  } else if (!/^[0-9]+$/.test(rf) || Number(rf) !== target.replicationFactor) {
    reasons.push(`replication factor of ${JSON.stringify(target.dataCenter)} is ${rf}, expected ${target.replicationFactor}`);
  }
  return reasons;
}

/** Checks the ScyllaDB keyspace extension row; returns the reasons the keyspace may use tablets. */
export function tabletProblems(fact: ScyllaKeyspacesFact): string[] {
  switch (fact.kind) {
    case 'table-absent':
    case 'no-row':
      return [];
    case 'row': {
      const reasons: string[] = [];
      if (fact.storageType !== 'vnodes') {
        reasons.push(`system_schema.scylla_keyspaces storage_type is ${JSON.stringify(fact.storageType)}; only 'vnodes' is accepted (LWT needs vnodes)`);
      }
      if (fact.initialTablets !== null) reasons.push(`keyspace uses tablets (initial_tablets = ${fact.initialTablets})`);
      return reasons;
    }
  }
}

/** Decides whether an existing keyspace is usable; `absent` when there is no keyspace row. */
export function decideKeyspace(replication: ReplicationFact, scylla: ScyllaKeyspacesFact, target: KeyspaceTarget): KeyspaceDecision {
  if (replication === null) return { verdict: 'absent' };
  const reasons = [...replicationProblems(replication, target), ...tabletProblems(scylla)];
  return reasons.length === 0 ? { verdict: 'accept' } : { verdict: 'reject', reasons };
}
