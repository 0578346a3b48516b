import type { ScyllaAdminStep, ScyllaMigrationReport, ScyllaReadinessCheck } from '@qim/backends';

/** The progress line of one step. */
export function stepLine(step: ScyllaAdminStep): string {
  switch (step.kind) {
    case 'connect':
      return `connecting to ${step.hosts.join(', ')} (data center ${step.dataCenter})`;
    case 'migrate':
      return `migrating keyspace ${step.keyspace} (RF ${step.replicationFactor}): ${step.tables.length} tables`;
    case 'keyspace':
      return `keyspace ${step.keyspace} ${step.created ? 'created' : 'verified (already present)'}`;
    case 'table':
      return `table ${step.table} ${step.created ? 'created' : 'already present'}`;
    case 'column':
      return `column ${step.table}.${step.column} added`;
    case 'readiness':
      return `checking readiness of keyspace ${step.keyspace}`;
  }
}

/** `ok   <check>`, or one `FAIL <check>: <problem>` line per problem. */
export function checkLines(check: ScyllaReadinessCheck): string[] {
  if (check.problems.length === 0) return [`ok   ${check.check}`];
  return check.problems.map((p) => `FAIL ${check.check}: ${p}`);
}

/** One line over the whole migration. */
export function migrationSummary(report: ScyllaMigrationReport, tableCount: number): string {
  const created = report.tablesCreated.length;
  return (
    `migrate done (${report.dialect}): keyspace ${report.keyspaceCreated ? 'created' : 'verified'}, ` +
    `${created} table(s) created, ${tableCount - created} already present, ${report.columnsAdded.length} column(s) added`
  );
}
