import type { Client } from 'cassandra-driver';
import { KEYSPACE_RE } from '../config/scylla-config';
import type { ScyllaConfig } from '../config/scylla-config';
import { mapDriverError } from '../session/statements';
import type { ScyllaSession } from '../session/scylla-session';
import { createKeyspaceCql } from '../schema/dialect';
import type { CqlDialect } from '../schema/dialect';
import { decideKeyspace } from '../schema/keyspace-decision';
import { SchemaRefusedError } from '../schema/schema-refused-error';
import { detectDialect, readColumns, readReplication, readScyllaKeyspace } from '../schema/system-schema';
import { planTable } from '../schema/table-plan';
import { qualify } from '../session/keyspace-token';
import type { TableSpec } from '../schema/table-spec';
import { legacyLayoutProblem, tablesOf } from './legacy-layout';
import { dataCenterSizeProblems } from '../schema/data-center';
import { awaitSchemaAgreement, schemaAgreementOf } from './schema-agreement';

/** Longest wait for the cluster's nodes to agree on the schema before and during migrate (ms). */
const SCHEMA_AGREEMENT_BOUND_MS = 60_000;

/** What an explicit migration did. */
export interface MigrationReport {
  readonly dialect: CqlDialect;
  readonly keyspaceCreated: boolean;
  readonly tablesCreated: readonly string[];
  /** `table.column` added with `ALTER TABLE … ADD`. */
  readonly columnsAdded: readonly string[];
}

/**
 * One step of a migration, reported as it completes (operator progress): the keyspace created or
 * verified, each table created or already present, each column added.
 */
export type MigrationEvent =
  | { readonly kind: 'keyspace'; readonly keyspace: string; readonly created: boolean }
  | { readonly kind: 'table'; readonly table: string; readonly created: boolean }
  | { readonly kind: 'column'; readonly table: string; readonly column: string };

/** Receives each `MigrationEvent`; must not throw. */
export type MigrationProgress = (event: MigrationEvent) => void;

/** DDL runs unprepared (no bind markers, the keyspace name is validated) at LOCAL_QUORUM through the `write` profile. */
async function ddl(client: Client, cql: string): Promise<void> {
  try {
    await client.execute(cql, [], { prepare: false, executionProfile: 'write', isIdempotent: true });
  } catch (err) {
    throw mapDriverError(err, cql);
  }
}

async function ensureKeyspace(client: Client, config: ScyllaConfig, dialect: CqlDialect): Promise<boolean> {
  const target = { dataCenter: config.localDataCenter, replicationFactor: config.replicationFactor };
  let created = false;
  let decision = decideKeyspace(await readReplication(client, config.keyspace), await readScyllaKeyspace(client, config.keyspace), target);
  if (decision.verdict === 'absent') {
    // A keyspace whose RF the data center cannot hold must not be created at all (nothing left behind).
    const tooSmall = dataCenterSizeProblems(client, config.localDataCenter, config.replicationFactor);
    if (tooSmall.length > 0) throw new SchemaRefusedError(tooSmall.map((p) => `keyspace ${config.keyspace} not created: ${p}`));
    await ddl(client, createKeyspaceCql(config.keyspace, config.localDataCenter, config.replicationFactor, dialect));
    created = true;
    // Re-read: IF NOT EXISTS is a no-op when a concurrent creator won with other settings.
    decision = decideKeyspace(await readReplication(client, config.keyspace), await readScyllaKeyspace(client, config.keyspace), target);
  }
  if (decision.verdict === 'absent') throw new SchemaRefusedError([`keyspace ${config.keyspace} is still absent after CREATE KEYSPACE`]);
  if (decision.verdict === 'reject') throw new SchemaRefusedError(decision.reasons.map((r) => `keyspace ${config.keyspace}: ${r}`));
  return created;
}

/**
 * Read-only pass over the tables of an existing keyspace before any table DDL: a keyspace of the
 * lane-watermark layout, or a table the plan refuses, leaves every table as it was.
 */
async function refuseBeforeDdl(client: Client, keyspace: string, tables: readonly TableSpec[]): Promise<void> {
  const legacy = legacyLayoutProblem(keyspace, await tablesOf(client, keyspace));
  if (legacy !== null) throw new SchemaRefusedError([legacy]);
  const problems: string[] = [];
  for (const spec of tables) problems.push(...planTable(spec, await readColumns(client, keyspace, spec.name)).problems);
  if (problems.length > 0) throw new SchemaRefusedError(problems);
}

/**
 * Explicit migration (never run by `connect`): creates the keyspace with NetworkTopologyStrategy
 * (and `tablets = {'enabled': false}` on ScyllaDB) or verifies an existing one — RF of the target
 * DC, then ScyllaDB's tablets row — and never alters it; then `CREATE TABLE IF NOT EXISTS` for
 * every table and `ALTER TABLE … ADD` only for known nullable columns. An existing keyspace that
 * still holds a table of the lane-watermark layout (ADR-0022 §7) is refused. A refusal throws
 * `SchemaRefusedError` with every reason; the keyspace is decided first and every table of an
 * existing keyspace is planned before the first table DDL, so a refusal alters nothing. DDL runs
 * at LOCAL_QUORUM and the driver waits for schema agreement after each statement; a cluster whose
 * nodes do not agree on one schema version within a bound is refused before any DDL. `onProgress`
 * hears each step as it completes.
 */
export async function migrate(session: ScyllaSession, tables: readonly TableSpec[], onProgress: MigrationProgress = () => undefined): Promise<MigrationReport> {
  const { client, config } = session;
  if (!KEYSPACE_RE.test(config.keyspace)) throw new SchemaRefusedError([`invalid keyspace name ${JSON.stringify(config.keyspace)}`]);
  await awaitSchemaAgreement(schemaAgreementOf(client), 'before migrate', { boundMs: SCHEMA_AGREEMENT_BOUND_MS });
  const dialect = await detectDialect(client);
  const keyspaceCreated = await ensureKeyspace(client, config, dialect);
  if (!keyspaceCreated) await refuseBeforeDdl(client, config.keyspace, tables);
  onProgress({ kind: 'keyspace', keyspace: config.keyspace, created: keyspaceCreated });
  const tablesCreated: string[] = [];
  const columnsAdded: string[] = [];
  for (const spec of tables) {
    let plan = planTable(spec, await readColumns(client, config.keyspace, spec.name));
    const created = plan.create;
    if (created) {
      await ddl(client, qualify(spec.create, config.keyspace));
      tablesCreated.push(spec.name);
      plan = planTable(spec, await readColumns(client, config.keyspace, spec.name));
      if (plan.create) {
        // The driver's own agreement wait may have run out: the node answering the schema read may
        // not have the table yet. Wait (bounded) for one schema version, then read again.
        await awaitSchemaAgreement(schemaAgreementOf(client), `after CREATE TABLE ${spec.name}`, { boundMs: SCHEMA_AGREEMENT_BOUND_MS });
        plan = planTable(spec, await readColumns(client, config.keyspace, spec.name));
      }
      if (plan.create) throw new SchemaRefusedError([`table ${spec.name} is still absent after CREATE TABLE`]);
    }
    if (plan.problems.length > 0) throw new SchemaRefusedError([...plan.problems]);
    onProgress({ kind: 'table', table: spec.name, created });
    for (const { column, type } of plan.add) {
      await ddl(client, `ALTER TABLE ${config.keyspace}.${spec.name} ADD ${column} ${type}`);
      columnsAdded.push(`${spec.name}.${column}`);
      onProgress({ kind: 'column', table: spec.name, column });
    }
  }
  return { dialect, keyspaceCreated, tablesCreated, columnsAdded };
}
