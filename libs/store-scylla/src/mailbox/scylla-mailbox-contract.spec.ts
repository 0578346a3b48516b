import { describeMailboxStoreContract } from '@qim/store-contract/testing';
import { GATE_CASE_TIMEOUT_MS, GATE_SETUP_TIMEOUT_MS, openMailboxGate } from '../testing/mailbox-gate';
import type { MailboxGate } from '../testing/mailbox-gate';
import { ScyllaMailboxHarness } from '../testing/scylla-mailbox-harness';

jest.setTimeout(GATE_CASE_TIMEOUT_MS);

let gate: MailboxGate | null = null;

beforeAll(async () => {
  gate = await openMailboxGate('contract');
}, GATE_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await gate?.drop();
}, GATE_SETUP_TIMEOUT_MS);

describeMailboxStoreContract('ScyllaMailboxStore (real Cassandra 5, real TTLs)', async () => {
  if (gate === null) throw new Error('the Scylla gate keyspace was not created (see beforeAll)');
  return new ScyllaMailboxHarness(gate.session);
});
