import type { DeliveryLag } from '@qim/bus';

/** One change of a watched group's partitions that do not count for admission. */
export interface DeliveryAlarmChange {
  readonly groupId: string;
  readonly stalled: readonly number[];
  readonly replaying: readonly number[];
  readonly was: { readonly stalled: readonly number[]; readonly replaying: readonly number[] };
}

/**
 * Remembers, per watched group, which partitions the last read found stalled or replaying, and
 * answers what changed: the writer logs a stall once when it starts and once when it ends (its
 * metric says it on every read), not on every poll.
 */
export class DeliveryAlarms {
  private readonly last = new Map<string, { stalled: readonly number[]; replaying: readonly number[] }>();

  update(lag: DeliveryLag): DeliveryAlarmChange[] {
    const changes: DeliveryAlarmChange[] = [];
    for (const g of lag.groups) {
      const was = this.last.get(g.groupId) ?? { stalled: [], replaying: [] };
      const now = { stalled: g.stalledPartitions, replaying: g.replayingPartitions };
      if (now.stalled.join() !== was.stalled.join() || now.replaying.join() !== was.replaying.join()) changes.push({ groupId: g.groupId, ...now, was });
      this.last.set(g.groupId, now);
    }
    return changes;
  }
}

/**
 * The probe's timings from the gate's: a partition is stalled once its position stood still for
 * `stallMs` (by default half the lag bound: its age is then about that, so a stall alone never closes
 * the gate), and a read not answered within twice the poll interval (at least 2 s) has failed.
 */
export function admissionProbeTimings(gate: { readonly stallMs: number; readonly pollMs: number }): { stallMs: number; readTimeoutMs: number } {
  return { stallMs: gate.stallMs, readTimeoutMs: Math.max(2_000, 2 * gate.pollMs) };
}
