import { checkReadiness } from '../readiness/readiness';
import { MAILBOX_TABLES } from '../mailbox/schema';
import { GATE_CASE_TIMEOUT_MS, GATE_SETUP_TIMEOUT_MS, openMailboxGate } from '../testing/mailbox-gate';
import type { MailboxGate } from '../testing/mailbox-gate';
import { SchemaRefusedError } from '../schema/schema-refused-error';
import { tablesOf } from './legacy-layout';
import { migrate } from './migrate';

/** Scylla gate: `migrate` refuses a keyspace of the lane-watermark layout and alters nothing (ADR-0022 §7). */
jest.setTimeout(GATE_CASE_TIMEOUT_MS);

let gate: MailboxGate;
const ddl = (cql: string): Promise<unknown> => gate.session.client.execute(cql.split('{ks}').join(gate.keyspace), [], { executionProfile: 'write' });

beforeAll(async () => {
  gate = await openMailboxGate('legacy');
}, GATE_SETUP_TIMEOUT_MS);
afterAll(async () => gate?.drop(), GATE_SETUP_TIMEOUT_MS);

it(
  'a keyspace still holding a lane-watermark table is refused with the ADR text, ' + 'nothing is created or altered; after the drop migrate completes',
  async () => {
    await ddl('DROP TABLE {ks}.shard_frontier');
    await ddl('CREATE TABLE {ks}.lane_watermark (shard int, lane int, w bigint, w_floor bigint, PRIMARY KEY ((shard, lane)))');
    await ddl('CREATE TABLE {ks}.dispatch_progress (shard int, dispatch_id blob, digest blob, PRIMARY KEY ((shard, dispatch_id)))');
    const before = (await tablesOf(gate.session.client, gate.keyspace)).sort();
    const err = await migrate(gate.session, MAILBOX_TABLES).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SchemaRefusedError);
    expect((err as SchemaRefusedError).reasons).toEqual([
      `keyspace ${gate.keyspace} has dispatch_progress, lane_watermark, created by the lane-watermark layout — ` +
        `deploy the frontier layout in a new keyspace, or drop those tables after draining the mailbox`,
    ]);
    expect((await tablesOf(gate.session.client, gate.keyspace)).sort()).toEqual(before);
    expect(before).not.toContain('shard_frontier');
    const readiness = await checkReadiness(gate.session, MAILBOX_TABLES);
    expect(readiness.ready).toBe(false);
    expect(readiness.problems).toEqual(
      expect.arrayContaining([expect.stringMatching(/created by the lane-watermark layout/), 'table shard_frontier does not exist']),
    );

    await ddl('DROP TABLE {ks}.lane_watermark');
    await ddl('DROP TABLE {ks}.dispatch_progress');
    expect(await migrate(gate.session, MAILBOX_TABLES)).toMatchObject({ keyspaceCreated: false, tablesCreated: ['shard_frontier'] });
    expect(await checkReadiness(gate.session, MAILBOX_TABLES)).toMatchObject({ ready: true, problems: [] });
  },
);
