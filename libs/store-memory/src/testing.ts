/** Test seams of the Memory backend (`@qim/store-memory/testing`): its kit for the soak and the benchmarks. */
export { memoryTestKit } from './testing/memory-test-kit';
export type { MemoryInspection } from './testing/memory-test-kit';
