/**
 * Test seam for fault injection: named points between the store's durable steps. Production code
 * never passes one (the store uses `NO_SCYLLA_MESSAGE_FAULTS`); the gate's crash specs pass, as the
 * store's `faults` option, a `ScyllaMessageFaults` that throws at a chosen point, which stops the
 * operation exactly there, like a kill -9 would.
 */
export type ScyllaMessageFaultPoint =
  /** The claim LWT ran; its answer is not used yet (thrown here: the answer was lost). */
  | 'reserve:claim-answered'
  | 'reserve:after-claim'
  | 'reserve:after-entry'
  | 'reserve:after-entry-and-seq'
  | 'reserve:after-commit'
  | 'put-record:after-record'
  | 'put-record:after-index'
  | 'mark-committed:after-state'
  /** Before each attempt to release a claim after a failed reserve (not a crash point: see `SCYLLA_MESSAGE_FAULT_POINTS`). */
  | 'reserve:release-claim';

/** The crash points: every point between two durable steps (the release point is on a failure path only). */
export const SCYLLA_MESSAGE_FAULT_POINTS: readonly ScyllaMessageFaultPoint[] = Object.freeze([
  'reserve:claim-answered',
  'reserve:after-claim',
  'reserve:after-entry',
  'reserve:after-entry-and-seq',
  'reserve:after-commit',
  'put-record:after-record',
  'put-record:after-index',
  'mark-committed:after-state',
]);

export interface ScyllaMessageFaults {
  /** Called when the store reaches `point`; throwing aborts the operation there. */
  at(point: ScyllaMessageFaultPoint): void | Promise<void>;
}

/** The production value: nothing happens at any point. */
export const NO_SCYLLA_MESSAGE_FAULTS: ScyllaMessageFaults = Object.freeze({ at: () => undefined });
