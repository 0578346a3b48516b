/** Test seams of the Scylla backend (`@qim/store-scylla/testing`): the gate's environment and a request counter. */
export { TEST_ENV_VARS, scyllaTestConfigFromEnv } from './testing/scylla-test-env';
export { RequestTally } from './testing/request-tally';
export { scyllaTestBackendConfig, scyllaTestKit } from './testing/scylla-test-kit';
export type { ScyllaInspection } from './testing/scylla-test-kit';
