import { GcNotSafeError, InvalidInputError, InvariantViolationError, decideAdvance, decideFloor, recomputeWatermark, verifyWatermark } from '@qim/store-core';
import type { AdvanceDecision, Clock, LaneSource, LaneWatermark } from '@qim/store-core';
import type { ShardKeys } from '../keys/redis-keys';
import { u64FromHex16 } from '../redis/hex64';
import type { RedisIo } from '../redis/redis-io';
import { ScriptCode } from '../redis/script-codes';
import { ScriptReply } from '../redis/script-reply';
import { advanceFloorCall, advanceWatermarkCall, laneWatermarkCall } from './mailbox-script-args';
import { checkLane } from './redis-dispatch-ops';

function checkOffset(v: bigint, what: string): void {
  if (typeof v !== 'bigint' || v < 0n) throw new InvalidInputError(`${what} must be a u64 source offset`);
}

/**
 * Runs the store-core rule on the facts the script saw and checks that the script did the same:
 * advance ⇔ script wrote (OK), no-op ⇔ ALREADY, a refusal ⇔ a refusal code. Returns the decision or
 * throws the rule's error.
 */
function agreeing(code: number, decide: () => AdvanceDecision, what: string): AdvanceDecision {
  let decision: AdvanceDecision;
  try {
    decision = decide();
  } catch (e) {
    if (code >= 0) throw new InvariantViolationError(`${what}: script answered ${code} where the rule refuses`, { cause: e });
    throw e;
  }
  const expected = decision === 'advance' ? ScriptCode.OK : ScriptCode.ALREADY;
  if (code !== expected) throw new InvariantViolationError(`${what}: script answered ${code}, rule decided ${decision}`);
  return decision;
}

const hexOrNull = (b: Buffer, what: string): bigint | null => (b.length === 0 ? null : u64FromHex16(b, what));

/**
 * Lane watermarks. The scripts make each move atomic with the facts it depends on and decide with
 * the same rules as store-core; the wrapper re-runs `decideAdvance` / `decideFloor` on the facts
 * the script saw, so every refusal is the exact error Memory raises, and a disagreement between
 * the two is an `InvariantViolationError`.
 */
export class RedisWatermarks {
  constructor(
    private readonly io: RedisIo,
    private readonly keys: ShardKeys,
    private readonly clock: Clock,
  ) {}

  async laneWatermark(lane: number): Promise<LaneWatermark> {
    checkLane(lane);
    const reply = ScriptReply.of(await this.io.script(laneWatermarkCall(this.keys, this.clock.nowMs(), lane), 'read'), 'laneWatermark');
    const w = hexOrNull(reply.buf(1), 'W');
    const floor = hexOrNull(reply.buf(2), 'floor');
    const sources: LaneSource[] = [];
    for (let i = 3; i < reply.length; i += 2) sources.push({ offset: u64FromHex16(reply.buf(i), 'source offset'), complete: reply.int(i + 1) === 1 });
    return verifyWatermark({ lane, w, floor }, recomputeWatermark(floor, sources));
  }

  async advanceWatermark(lane: number, expectedPrev: bigint | null, offset: bigint): Promise<LaneWatermark> {
    checkLane(lane);
    checkOffset(offset, 'offset');
    if (expectedPrev !== null) checkOffset(expectedPrev, 'expectedPrev');
    const reply = ScriptReply.of(await this.io.script(advanceWatermarkCall(this.keys, this.clock.nowMs(), lane, expectedPrev, offset), 'write'), 'advanceWatermark');
    if (reply.code === ScriptCode.GC_NOT_SAFE) throw new GcNotSafeError(`the dispatch at offset ${offset} is scheduled for GC`);
    const current = hexOrNull(reply.buf(1), 'W');
    const floor = hexOrNull(reply.buf(2), 'floor');
    const facts = { current, expectedPrev, offset, lowestRecorded: hexOrNull(reply.buf(3), 'lowest source'), recorded: reply.int(4) === 1, complete: reply.int(5) === 1 };
    const decision = agreeing(reply.code, () => decideAdvance(facts), 'advanceWatermark');
    return decision === 'noop' ? { lane, w: current, floor } : { lane, w: offset, floor };
  }

  async advanceFloor(lane: number, expectedFloor: bigint | null, newFloor: bigint): Promise<LaneWatermark> {
    checkLane(lane);
    checkOffset(newFloor, 'newFloor');
    const reply = ScriptReply.of(await this.io.script(advanceFloorCall(this.keys, lane, expectedFloor, newFloor), 'write'), 'advanceFloor');
    const w = hexOrNull(reply.buf(1), 'W');
    const floor = hexOrNull(reply.buf(2), 'floor');
    const decision = agreeing(reply.code, () => decideFloor({ lane, w, floor }, expectedFloor, newFloor), 'advanceFloor');
    return decision === 'noop' ? { lane, w, floor } : { lane, w, floor: newFloor };
  }
}
