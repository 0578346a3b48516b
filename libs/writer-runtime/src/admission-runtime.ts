import type { DeliveryLag, WatchedGroup, createKafka } from '@qim/bus';
import { DeliveryLagProbe, GroupOffsetsReader, MailboxGroupFinder } from '@qim/bus';
import type { WriterConfig } from './config/writer-config';
import { AdmissionGate, admissionDrainAfterMs, effectiveLagMs } from './admission';
import { DeliveryAlarms, admissionProbeTimings } from './delivery-alarms';
import type { WriterMetrics } from './writer-metrics';

interface AdmissionLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

const groupsOf = (lag: DeliveryLag) =>
  lag.groups.map((g) => ({
    group: g.groupId,
    members: g.members,
    lagMs: g.lagMs,
    drainMs: g.drainMs,
    recordsPerSecond: g.recordsPerSecond,
    behind: g.behindRecords.toString(),
    stalled: g.stalledPartitions,
    replaying: g.replayingPartitions,
  }));

/**
 * The admission gate over the mailbox's consumer groups as found on the broker (`MailboxGroupFinder`:
 * the router group and the live shard groups, whatever the mailbox's epoch), with its metrics and
 * logs: the groups watched at start-up and on every change; a partition that stalls or replays once
 * when it starts and once when it ends (`qim_delivery_stalled_partitions` /
 * `qim_delivery_replaying_partitions` on every read). `close` stops the gate and its admin client.
 */
export function admissionGate(
  kafka: ReturnType<typeof createKafka>,
  cfg: NonNullable<WriterConfig['admission']>,
  m: WriterMetrics,
  log: AdmissionLogger,
): { gate: AdmissionGate; close(): Promise<void> } {
  const reader = new GroupOffsetsReader(kafka);
  const alarms = new DeliveryAlarms();
  let watched: readonly WatchedGroup[] = [];
  const perGroup = [m.deliveryLagSeconds, m.deliveryDrainSeconds, m.deliveryStalledPartitions, m.deliveryReplayingPartitions];
  const onWatch = (groups: readonly WatchedGroup[]): void => {
    const ids = new Set(groups.map((g) => g.groupId));
    for (const gone of watched.filter((g) => !ids.has(g.groupId))) for (const gauge of perGroup) gauge.remove({ group: gone.groupId });
    log.info(
      {
        groups: groups.map((g) => ({ group: g.groupId, topic: g.topic, ...(g.replayOf && g.replayOf.length > 0 ? { replayOf: g.replayOf } : {}) })),
        was: watched.map((g) => g.groupId),
      },
      `admission gate watches the mailbox groups ${groups.map((g) => g.groupId).join(', ')}`,
    );
    watched = groups;
  };
  const probe = new DeliveryLagProbe(reader, new MailboxGroupFinder(reader, cfg.mailbox), Date.now, { ...admissionProbeTimings(cfg), onWatch });
  const drainAfterMs = admissionDrainAfterMs(cfg);
  const gate = new AdmissionGate({
    maxLagMs: cfg.maxLagMs,
    pollMs: cfg.pollMs,
    drainAfterMs,
    waitMs: cfg.waitMs,
    light: cfg.light,
    probe,
    onLag: (lag) => {
      for (const g of lag.groups) {
        m.deliveryLagSeconds.set({ group: g.groupId }, g.lagMs === null ? -1 : g.lagMs / 1000);
        m.deliveryDrainSeconds.set({ group: g.groupId }, g.drainMs === null ? -1 : g.drainMs / 1000);
        m.deliveryStalledPartitions.set({ group: g.groupId }, g.stalledPartitions.length);
        m.deliveryReplayingPartitions.set({ group: g.groupId }, g.replayingPartitions.length);
      }
      for (const c of alarms.update(lag)) {
        const detail = { group: c.groupId, stalled: c.stalled, replaying: c.replaying, was: c.was };
        if (c.stalled.length > c.was.stalled.length || c.stalled.some((p) => !c.was.stalled.includes(p))) {
          log.warn(
            detail,
            `delivery stalled on partitions ${c.stalled.join(', ')} of ${c.groupId} ` +
              `(position unmoved while records wait: a refused or failing consumer; not counted for admission, see the mailbox's shard status)`,
          );
        } else if (c.replaying.length > 0 && c.replaying.join() !== c.was.replaying.join()) {
          log.info(detail, `${c.groupId} replays what an older epoch delivered on partitions ${c.replaying.join(', ')} (not counted for admission)`);
        } else {
          log.info(
            detail,
            `${c.groupId}: stalled [${c.stalled.join(', ')}], replaying [${c.replaying.join(', ')}] ` +
              `(was stalled [${c.was.stalled.join(', ')}], replaying [${c.was.replaying.join(', ')}])`,
          );
        }
      }
    },
    onChange: (closed, lag) => {
      m.admissionClosed.set(closed ? 1 : 0);
      const groups = lag === null ? undefined : groupsOf(lag);
      const lagMs = lag === null ? null : effectiveLagMs(lag, cfg.maxLagMs, drainAfterMs);
      if (closed) log.warn({ lagMs, maxLagMs: cfg.maxLagMs, groups }, 'admission gate closed: delivery is behind, sends wait');
      else log.info({ lagMs, groups }, lag === null ? 'admission gate open (delivery lag unreadable, or stopping)' : 'admission gate open');
    },
    onProbeError: (err, failures) => log.warn({ err, failures }, 'admission gate could not read the delivery lag'),
    onWaited: (outcome) => m.admissionWaits.inc({ outcome }),
  });
  return {
    gate,
    close: async () => {
      await gate.stop();
      await reader.close();
    },
  };
}
