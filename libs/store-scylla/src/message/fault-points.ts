/**
 * Test seam for fault injection: named points between the store's durable steps. Production code
 * never passes one (the store uses `NO_FAULTS`); the gate's crash specs pass a `FaultPoints` that
 * throws at a chosen point, which stops the operation exactly there, like a kill -9 would.
 */
export type FaultPoint =
  | 'reserve:after-claim'
  | 'reserve:after-entry'
  | 'reserve:after-entry-and-seq'
  | 'reserve:after-commit'
  | 'put-record:after-record'
  | 'put-record:after-index'
  | 'mark-committed:after-state';

export const FAULT_POINTS: readonly FaultPoint[] = Object.freeze([
  'reserve:after-claim',
  'reserve:after-entry',
  'reserve:after-entry-and-seq',
  'reserve:after-commit',
  'put-record:after-record',
  'put-record:after-index',
  'mark-committed:after-state',
]);

export interface FaultPoints {
  /** Called when the store reaches `point`; throwing aborts the operation there. */
  at(point: FaultPoint): void | Promise<void>;
}

/** The production value: nothing happens at any point. */
export const NO_FAULTS: FaultPoints = Object.freeze({ at: () => undefined });
