/** Named points between the durable steps of `reserve` and `putRecord` (a test seam; see `MemoryMessageFaults`). */
export type MemoryMessageFaultPoint =
  'reserve:after-recovery-entry' | 'reserve:after-seq' | 'reserve:after-commit' | 'put-record:after-record' | 'put-record:after-index';

/**
 * Test seam for crash injection: called synchronously when a step is durable; throwing stops the
 * operation exactly there, like a kill -9 would. Production passes none (`NO_MEMORY_MESSAGE_FAULTS`).
 */
export interface MemoryMessageFaults {
  at(point: MemoryMessageFaultPoint): void;
}

export const NO_MEMORY_MESSAGE_FAULTS: MemoryMessageFaults = Object.freeze({ at: () => undefined });
