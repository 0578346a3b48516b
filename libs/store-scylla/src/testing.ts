/**
 * Test seams of the Scylla backend (`@qim/store-scylla/testing`): the gate's environment, a request
 * counter, the statement counter a store reports to, and the crash points of `applyPage`.
 */
export { TEST_ENV_VARS, scyllaTestConfigFromEnv } from './testing/scylla-test-env';
export { RequestTally } from './testing/request-tally';
export { scyllaTestBackendConfig, scyllaTestKit } from './testing/scylla-test-kit';
export type { ScyllaInspection } from './testing/scylla-test-kit';
export { StatementCounter } from './session/statement-counter';
export type { StatementCount } from './session/statement-counter';
export type { ScyllaMailboxFaults } from './mailbox/context/scylla-mailbox-faults';
