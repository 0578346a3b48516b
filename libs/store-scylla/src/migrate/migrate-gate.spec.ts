import { randomBytes } from 'node:crypto';
import { InvalidInputError } from '@qim/store-core';
import { developmentScyllaConfig } from '../config/scylla-config';
import type { ScyllaConfig } from '../config/scylla-config';
import { scyllaTestConfigFromEnv } from '../testing/scylla-test-env';
import { MESSAGE_TABLES } from '../message/message-tables';
import { checkReadiness } from '../readiness/readiness';
import { ALL_TABLES } from '../all-tables';
import { SchemaRefusedError } from '../schema/schema-refused-error';
import { readColumns, readReplication } from '../schema/system-schema';
import { connectSession } from '../session/scylla-session';
import type { ScyllaSession } from '../session/scylla-session';
import { migrate } from './migrate';
import type { MigrationEvent } from './migrate';

/**
 * Scylla gate: explicit migration and readiness against the real server, including every refusal
 * case. Keyspaces are unique per run and dropped at the end (the test drops; the backend never does).
 */
jest.setTimeout(180_000);

const base = scyllaTestConfigFromEnv(process.env, `_mig_${randomBytes(3).toString('hex')}`);
const named = (suffix: string, over: Partial<ScyllaConfig> = {}): ScyllaConfig =>
  developmentScyllaConfig({ ...base, keyspace: `${base.keyspace}${suffix}`, ...over });
const sessions: ScyllaSession[] = [];
const open = async (config: ScyllaConfig): Promise<ScyllaSession> => {
  const s = await connectSession(config);
  sessions.push(s);
  return s;
};
let admin: ScyllaSession;
const ddl = (cql: string) => admin.client.execute(cql, [], { executionProfile: 'write' });

beforeAll(async () => {
  admin = await open(base);
}, 120_000);

afterAll(async () => {
  for (const ks of [base.keyspace, named('_rf').keyspace, named('_bad').keyspace, named('_big').keyspace]) await ddl(`DROP KEYSPACE IF EXISTS ${ks}`);
  for (const s of sessions) await s.close();
}, 300_000);

describe('migrate + readiness (real server)', () => {
  it('connect never touches schema, and readiness is not green on a missing keyspace', async () => {
    const session = await open(base);
    const report = await checkReadiness(session, ALL_TABLES);
    expect(report.ready).toBe(false);
    expect(report.dialect).toBe('cassandra');
    expect(report.problems).toContain(`keyspace ${base.keyspace} does not exist`);
    expect(await readReplication(session.client, base.keyspace)).toBeNull();
  });

  it(
    'creates the keyspace (NetworkTopologyStrategy, target DC/RF, no tablets clause on Cassandra) and every table; ' +
      'then readiness is green; a rerun changes nothing',
    async () => {
      const session = await open(base);
      const events: MigrationEvent[] = [];
      const first = await migrate(session, ALL_TABLES, (e) => events.push(e));
      expect(first).toEqual({ dialect: 'cassandra', keyspaceCreated: true, tablesCreated: ALL_TABLES.map((t) => t.name), columnsAdded: [] });
      expect(events).toEqual([
        { kind: 'keyspace', keyspace: base.keyspace, created: true },
        ...ALL_TABLES.map((t) => ({ kind: 'table', table: t.name, created: true })),
      ]);
      expect(await readReplication(session.client, base.keyspace)).toEqual({
        class: 'org.apache.cassandra.locator.NetworkTopologyStrategy',
        [base.localDataCenter]: String(base.replicationFactor),
      });
      expect(await checkReadiness(session, ALL_TABLES)).toMatchObject({ ready: true, dialect: 'cassandra', problems: [] });
      const rerun: MigrationEvent[] = [];
      expect(await migrate(session, ALL_TABLES, (e) => rerun.push(e))).toEqual({
        dialect: 'cassandra',
        keyspaceCreated: false,
        tablesCreated: [],
        columnsAdded: [],
      });
      expect(rerun).toEqual([
        { kind: 'keyspace', keyspace: base.keyspace, created: false },
        ...ALL_TABLES.map((t) => ({ kind: 'table', table: t.name, created: false })),
      ]);
    },
  );

  it('a missing known nullable column makes readiness red; migrate adds exactly that column with ALTER TABLE … ADD', async () => {
    const session = await open(base);
    await ddl(`ALTER TABLE ${base.keyspace}.message_commit DROP committed_at`);
    const red = await checkReadiness(session, ALL_TABLES);
    expect(red.ready).toBe(false);
    expect(red.problems).toEqual(['message_commit.committed_at is missing (run migrate)']);
    const events: MigrationEvent[] = [];
    expect((await migrate(session, ALL_TABLES, (e) => events.push(e))).columnsAdded).toEqual(['message_commit.committed_at']);
    expect(events).toContainEqual({ kind: 'column', table: 'message_commit', column: 'committed_at' });
    expect((await readColumns(session.client, base.keyspace, 'message_commit'))?.['committed_at']).toBe('bigint');
    expect((await checkReadiness(session, ALL_TABLES)).ready).toBe(true);
  });

  it('wrong RF in the config: migrate refuses and never alters the keyspace; readiness is red', async () => {
    const session = await open(named('', { keyspace: base.keyspace, replicationFactor: base.replicationFactor + 2 }));
    const err = await migrate(session, ALL_TABLES).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SchemaRefusedError);
    expect(String((err as Error).message)).toMatch(
      `replication factor of "${base.localDataCenter}" is ${base.replicationFactor}, expected ${base.replicationFactor + 2}`,
    );
    expect((await readReplication(session.client, base.keyspace))?.[base.localDataCenter]).toBe(String(base.replicationFactor));
    const report = await checkReadiness(session, ALL_TABLES);
    expect(report.ready).toBe(false);
    expect(report.problems.join('\n')).toMatch(/replication factor/);
  });

  it('an RF larger than the data center: migrate refuses before creating anything (no keyspace left behind)', async () => {
    const nodes = [...admin.client.hosts.values()].filter((h) => h.datacenter === base.localDataCenter).length;
    const cfg = named('_big', { replicationFactor: nodes + 2 });
    const session = await open(cfg);
    const err = await migrate(session, ALL_TABLES).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SchemaRefusedError);
    expect(String((err as Error).message)).toMatch(`data center ${base.localDataCenter} has ${nodes} node(s), fewer than RF ${nodes + 2}`);
    expect(await readReplication(session.client, cfg.keyspace)).toBeNull();
  });

  it('an existing keyspace with another RF is refused and left exactly as it was (no tables created)', async () => {
    const cfg = named('_rf');
    const otherRf = base.replicationFactor + 1;
    await ddl(`CREATE KEYSPACE ${cfg.keyspace} WITH replication = {'class': 'NetworkTopologyStrategy', '${base.localDataCenter}': ${otherRf}}`);
    const session = await open(cfg);
    await expect(migrate(session, ALL_TABLES)).rejects.toBeInstanceOf(SchemaRefusedError);
    expect((await readReplication(session.client, cfg.keyspace))?.[base.localDataCenter]).toBe(String(otherRf));
    expect(await readColumns(session.client, cfg.keyspace, 'message_commit')).toBeNull();
    expect((await checkReadiness(session, ALL_TABLES)).ready).toBe(false);
  });

  it('an existing table whose column has another type is refused before any DDL (no other table is created either)', async () => {
    const cfg = named('_bad');
    await ddl(`CREATE KEYSPACE ${cfg.keyspace} WITH replication = {'class': 'NetworkTopologyStrategy', '${base.localDataCenter}': ${base.replicationFactor}}`);
    await ddl(
      `CREATE TABLE ${cfg.keyspace}.message_record (tenant_id blob, conversation_id blob, seq_bucket bigint, conversation_seq bigint, ` +
        `record text, PRIMARY KEY ((tenant_id, conversation_id, seq_bucket), conversation_seq))`,
    );
    const session = await open(cfg);
    await expect(migrate(session, MESSAGE_TABLES)).rejects.toThrow(/message_record\.record is text, expected blob/);
    expect((await readColumns(session.client, cfg.keyspace, 'message_record'))?.['record']).toBe('text');
    expect(await readColumns(session.client, cfg.keyspace, 'message_commit')).toBeNull();
    const report = await checkReadiness(session, MESSAGE_TABLES);
    expect(report.ready).toBe(false);
    expect(report.problems).toContain('message_record.record is text, expected blob');
  });

  it('wrong DC: the session refuses with a configuration error; nothing is created', async () => {
    const cfg = named('_dc', { localDataCenter: 'dc_that_does_not_exist' });
    await expect(connectSession(cfg)).rejects.toBeInstanceOf(InvalidInputError);
    expect(await readReplication(admin.client, cfg.keyspace)).toBeNull();
  });

  it('a bad keyspace name is refused by the config, and by migrate before any statement', async () => {
    expect(() => named('', { keyspace: 'Bad-Name' })).toThrow(InvalidInputError);
    const forged: ScyllaSession = { client: admin.client, config: { ...base, keyspace: 'bad; DROP KEYSPACE system' }, close: async () => undefined };
    await expect(migrate(forged, ALL_TABLES)).rejects.toThrow(/invalid keyspace name/);
  });
});
