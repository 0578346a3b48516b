import { CorruptEntryError, InvalidInputError, gcDeadlineAt } from '@qim/store-core';
import type { Clock, HousekeepingReport, Id128, MailboxGcConfig } from '@qim/store-core';
import type { ShardKeys } from '../keys/redis-keys';
import { u64FromHex16 } from '../redis/hex64';
import type { RedisIo } from '../redis/redis-io';
import { ScriptCode, errorForCode } from '../redis/script-codes';
import { ScriptReply } from '../redis/script-reply';
import { gcFixDeadlineCall, gcScheduleChildrenCall, gcScheduleProgressCall, gcSweepCall } from './mailbox-script-args';

const SWEEP_BATCH = 256;
const SWEEP_ROUNDS = 16;
const INDEX_PAGE = 256;

/**
 * `gcCompletedDispatches` as the seed's resumable steps, each one atomic script on the shard tag:
 *   0. sweep: physically delete dispatches whose fixed deadline has passed (already invisible);
 *   1. fix ONE deadline (gate checked inside the script) and mirror it to the completed index;
 *   2. phase null → 1, children (lane sources, chunk facts, observations) get the deadline, 1 → 2;
 *   3. progress and completed-index row get the deadline.
 * A crash between steps resumes from the stored marker and phase; nothing is ever renewed.
 * `reclaimed` counts dispatches this pass advanced (as Memory); fully scheduled ones are examined
 * but do not count against `limit`.
 */
export class RedisDispatchGc {
  constructor(
    private readonly io: RedisIo,
    private readonly keys: ShardKeys,
    private readonly clock: Clock,
    private readonly gc: MailboxGcConfig,
    private readonly physicalGraceMs: bigint,
  ) {}

  async gcCompletedDispatches(cutoffMs: bigint, limit: number): Promise<HousekeepingReport> {
    if (!Number.isInteger(limit) || limit < 1) throw new InvalidInputError(`limit must be an integer ≥ 1: ${limit}`);
    const now = this.clock.nowMs();
    await this.sweep(now);
    let examined = 0;
    let reclaimed = 0;
    for (let start = 0; ; start += INDEX_PAGE) {
      const [page] = await this.io.commands([['ZRANGE', this.keys.completedIndex, String(start), String(start + INDEX_PAGE - 1)]], 'read');
      const members = (page as Buffer[]).map((b) => b.toString('latin1') as Id128);
      for (const d of members) {
        if (reclaimed >= limit) return { examined, reclaimed, more: true };
        examined++;
        if (await this.collect(d, cutoffMs, now)) reclaimed++;
      }
      if (members.length < INDEX_PAGE) return { examined, reclaimed, more: false };
    }
  }

  private async sweep(now: bigint): Promise<void> {
    for (let round = 0; round < SWEEP_ROUNDS; round++) {
      const reply = ScriptReply.of(await this.io.script(gcSweepCall(this.keys, now, SWEEP_BATCH), 'write'), 'gc sweep');
      if (reply.int(1) === 0) return;
    }
  }

  /** Steps 1–3 for one completed dispatch; true when any of them wrote something. */
  private async collect(d: Id128, cutoffMs: bigint, now: bigint): Promise<boolean> {
    const fixed = ScriptReply.of(await this.io.script(gcFixDeadlineCall(this.keys, now, cutoffMs, d, gcDeadlineAt(now, this.gc.dispatchGcDelayMs)), 'write'), 'gc fix deadline');
    if (fixed.code === ScriptCode.CORRUPT) throw new CorruptEntryError(`dispatch ${d}: GC deadline copies disagree or progress is missing without a marker`);
    if (fixed.code !== ScriptCode.OK) throw errorForCode(fixed.code, 'gc fix deadline');
    if (fixed.int(1) === 0) return false;
    const deadline = u64FromHex16(fixed.buf(3), 'GC deadline');
    const children = ScriptReply.of(await this.io.script(gcScheduleChildrenCall(this.keys, now, d, deadline, this.physicalGraceMs), 'write'), 'gc children');
    const progress = ScriptReply.of(await this.io.script(gcScheduleProgressCall(this.keys, now, d, deadline, this.physicalGraceMs), 'write'), 'gc progress');
    return fixed.int(2) === 1 || children.int(1) === 1 || progress.int(1) === 1;
  }
}
