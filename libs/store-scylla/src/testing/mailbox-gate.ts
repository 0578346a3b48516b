import { randomBytes } from 'node:crypto';
import { scyllaTestConfigFromEnv } from './scylla-test-env';
import { migrate } from '../migrate/migrate';
import type { MigrationReport } from '../migrate/migrate';
import { connectSession } from '../session/scylla-session';
import type { ClientTuning, ScyllaSession } from '../session/scylla-session';
import { MAILBOX_TABLES } from '../mailbox/schema';

/**
 * Test support (never imported by the store): one isolated keyspace per spec file on the gate's
 * real cluster (`QIM_TEST_SCYLLA_ADDR/KEYSPACE/DC/RF`; a missing variable throws, so the gate fails
 * loudly and never turns green without its server). Created by the explicit `migrate`, dropped at
 * the end.
 */
export interface MailboxGate {
  readonly session: ScyllaSession;
  readonly keyspace: string;
  readonly migration: MigrationReport;
  /** Drops the keyspace and closes the session. */
  drop(): Promise<void>;
}

/** Generous timeouts: 2 shared CPU cores, real DDL and real TTL waits. */
export const GATE_SETUP_TIMEOUT_MS = 300_000;
export const GATE_CASE_TIMEOUT_MS = 180_000;

/** Opens the gate keyspace of one spec file; `tuning` may add a driver request tracker. */
export async function openMailboxGate(tag: string, tuning: ClientTuning = {}): Promise<MailboxGate> {
  const config = scyllaTestConfigFromEnv(process.env, `_mbx_${tag}_${randomBytes(3).toString('hex')}`);
  const session = await connectSession(config, tuning);
  try {
    const migration = await migrate(session, MAILBOX_TABLES);
    return {
      session,
      keyspace: config.keyspace,
      migration,
      drop: async () => {
        try {
          await session.client.execute(`DROP KEYSPACE IF EXISTS ${config.keyspace}`, [], { executionProfile: 'write' });
        } finally {
          await session.close();
        }
      },
    };
  } catch (err) {
    await session.close();
    throw err;
  }
}
