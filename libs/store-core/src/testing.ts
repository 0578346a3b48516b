/**
 * Test seams of store-core (`@qim/store-core/testing`): for specs, the contract suite, the soak and
 * the benchmarks — never imported by production code.
 */
export { ManualClock } from './testing/manual-clock';
export type { BackendTestKit, TestOpenOptions, TestStoreTuning, TestStores } from './testing/backend-test-kit';
export { freePort } from './testing/free-port';
export { SAMPLE_SEND_REQUEST } from './testing/sample-request';
