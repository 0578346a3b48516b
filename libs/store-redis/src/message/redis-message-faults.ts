/**
 * Named points between the durable steps of `reserve` and `putRecord` (a test seam). Redis merges
 * steps other backends take apart: `claim-commit` writes the recovery member with the claim, the
 * RESERVED commit is complete once `claim-seq` has run (so `reserve:after-seq` and
 * `reserve:after-commit` leave the same state), and `put-record` writes record and index row in one
 * script (so both `put-record:*` points leave record + index without RECORDED).
 */
export type RedisMessageFaultPoint =
  'reserve:after-recovery-entry' | 'reserve:after-seq' | 'reserve:after-commit' | 'put-record:after-record' | 'put-record:after-index';

/** Called when a step is durable; throwing stops the operation there, like a kill -9 would. */
export interface RedisMessageFaults {
  at(point: RedisMessageFaultPoint): void | Promise<void>;
}
