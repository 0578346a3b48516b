import type { TableSpec } from './table-spec';

/** What `migrate` has to do for one table, decided from its `system_schema.columns` rows. */
export interface TablePlan {
  readonly table: string;
  /** The table does not exist: run its `CREATE TABLE IF NOT EXISTS`. */
  readonly create: boolean;
  /** Known nullable columns to add with `ALTER TABLE … ADD`, with their CQL type. */
  readonly add: readonly { readonly column: string; readonly type: string }[];
  /** Refusals: a missing column that may not be added, or a column of another type. */
  readonly problems: readonly string[];
}

const norm = (t: string): string => t.replace(/\s+/g, '').toLowerCase();

/**
 * Pure: compares a spec with the existing columns (name → type; null = table absent). Extra
 * columns are tolerated (an older or newer sibling may own them); missing addable columns are
 * planned, anything else that differs is a problem.
 */
export function planTable(spec: TableSpec, existing: Readonly<Record<string, string>> | null): TablePlan {
  if (existing === null) return { table: spec.name, create: true, add: [], problems: [] };
  const add: { column: string; type: string }[] = [];
  const problems: string[] = [];
  for (const [column, type] of Object.entries(spec.columns)) {
    const have = existing[column];
    if (have === undefined) {
      if (spec.addable.includes(column)) add.push({ column, type });
      else problems.push(`${spec.name}.${column} is missing and may not be added`);
    } else if (norm(have) !== norm(type)) {
      problems.push(`${spec.name}.${column} is ${have}, expected ${type}`);
    }
  }
  return { table: spec.name, create: false, add, problems };
}
