import { describeCommitterContract, describeMessageStoreContract } from '@qim/store-contract/testing';
import { GATE_CASE_TIMEOUT_MS, GATE_SETUP_TIMEOUT_MS, MessageGate } from '../testing/message-gate';

jest.setTimeout(GATE_CASE_TIMEOUT_MS);

let gate: MessageGate | null = null;

beforeAll(async () => {
  gate = await MessageGate.open('contract');
}, GATE_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await gate?.drop();
}, GATE_SETUP_TIMEOUT_MS);

const factory = async () => {
  if (gate === null) throw new Error('the Scylla gate keyspace was not created (see beforeAll)');
  return gate.harness();
};

describeMessageStoreContract('ScyllaMessageStore (real Cassandra 5, real TTLs)', factory);
describeCommitterContract('ScyllaMessageStore (real Cassandra 5, real TTLs)', factory);
