import { StoreError } from '@qim/store-core';
import { migrateScylla } from '@qim/backends';
import type { ScyllaAdminStep, ScyllaEnvConfig } from '@qim/backends';
import type { Output } from './output';
import { messageOf } from './output';
import { checkLines, migrationSummary, stepLine } from './report-lines';

/** Refusals the migration raises before its first DDL statement. */
const REFUSED_BEFORE_DDL = new Set(['SCHEMA_REFUSED', 'INVALID_INPUT']);

/**
 * `migrate`: the explicit migration of every table, then readiness. Prints one line per step and
 * what was created or found; 0 when migrated and ready, 1 on a refusal (reason on stderr), a
 * failure or a readiness problem.
 */
export async function runMigrate(config: ScyllaEnvConfig, io: Output): Promise<number> {
  const altered: string[] = [];
  let tableCount = 0;
  let migrating = false;
  const onStep = (step: ScyllaAdminStep) => {
    if (step.kind === 'migrate') {
      migrating = true;
      tableCount = step.tables.length;
    }
    if (step.kind === 'keyspace' && step.created) altered.push(`keyspace ${step.keyspace}`);
    if (step.kind === 'table' && step.created) altered.push(`table ${step.table}`);
    if (step.kind === 'column') altered.push(`column ${step.table}.${step.column}`);
    io.out(stepLine(step));
  };
  let outcome;
  try {
    outcome = await migrateScylla(config.scylla, onStep);
  } catch (err) {
    const refusal = !migrating || (err instanceof StoreError && REFUSED_BEFORE_DDL.has(err.code));
    io.err(`migrate ${refusal ? 'refused' : 'failed'}: ${messageOf(err)}`);
    if (altered.length === 0 && refusal) io.err('nothing was altered');
    else io.err(`altered before the failure: ${altered.length === 0 ? 'nothing reported' : altered.join(', ')}`);
    return 1;
  }
  const { migration, readiness } = outcome;
  for (const check of readiness.checks) for (const line of checkLines(check)) io.out(line);
  io.out(migrationSummary(migration, tableCount));
  if (readiness.ready) {
    io.out('ready');
    return 0;
  }
  io.err(`migrated, but not ready: ${readiness.problems.length} problem(s)`);
  for (const p of readiness.problems) io.err(`  ${p}`);
  return 1;
}
