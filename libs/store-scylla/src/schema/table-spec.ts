/**
 * One table of the Scylla backend, as `migrate` creates it and `readiness` verifies it. Each table
 * module (message tables, mailbox tables) exports its spec beside the statements that touch it.
 */
export interface TableSpec {
  /** Unqualified table name (`[a-z][a-z0-9_]*`). */
  readonly name: string;
  /** `CREATE TABLE IF NOT EXISTS` with the literal token `{ks}` for the keyspace. */
  readonly create: string;
  /** Expected columns name → CQL type (as `system_schema.columns.type` spells it), verified by migrate/readiness. */
  readonly columns: Readonly<Record<string, string>>;
  /** Nullable, non-key columns that `migrate` may add with `ALTER TABLE … ADD` when missing. */
  readonly addable: readonly string[];
}

/** Freezes a table spec (and its column map / addable list). */
export function defineTable(spec: TableSpec): TableSpec {
  return Object.freeze({
    name: spec.name,
    create: spec.create,
    columns: Object.freeze({ ...spec.columns }),
    addable: Object.freeze([...spec.addable]),
  });
}
