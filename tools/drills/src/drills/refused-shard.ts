import type { Redis } from 'ioredis';
import type { Load } from '../checker/load';
import type { Deployment } from '../stack/deployment';
import type { Drill, DrillContext } from './drill';
import { checkWith } from './harness';
import type { AdmissionWhileStalled } from './shard-faults';
import {
  ADMISSION_MAX_LAG_MS,
  admissionDuring,
  admissionLine,
  frontierOf,
  hex16,
  kafkaEnd,
  refusalOf,
  resetShard,
  shardAhead,
  until,
  withShardDrill,
  writerMetric,
} from './shard-faults';
import { shapeOf } from './sizes';

/**
 * The refused-shard drill (issue 28, item 1): the mailbox restarts on a store restored from an older
 * backup of one shard — the drill stops the mailbox, sets that shard's frontier key back to a value
 * it read earlier, and starts it again. The start-up check finds the group's committed offset past
 * `F + 1` and refuses the shard (`group-ahead`: nothing applied, nothing committed), while the other
 * shard delivers. For twice the writer's admission bound the drill sends one probe a second without
 * retries: every send must be accepted and the gate never close (a refused shard is not load:
 * ADR-0023's amendment), the refusal must show on the status route and the stall in
 * `qim_delivery_stalled_partitions`, and the other shard's frontier must move. Then the documented
 * resolution (apps/README.md, refused shards: stop every mailbox, `reset-mailbox-offsets --shard N`,
 * start) and the checker: every acknowledged message delivered, nothing lost, nothing duplicated.
 */

interface RefusedRound {
  readonly shard: number;
  readonly restoredTo: bigint;
  readonly from: bigint;
  /** How far the round got (printed when it fails). */
  stage: string;
  refusal?: { kind: string; reason: string };
  frontierHeld?: boolean;
  otherMoved?: string;
  admission?: AdmissionWhileStalled;
  resetOutput?: string;
  resolvedMs?: number;
  resumedTo?: bigint;
  ok: boolean;
}

async function refuseOneShard(
  ctx: DrillContext,
  d: Deployment,
  redis: Redis,
  load: Load,
  holdMs: number,
  started: (round: RefusedRound) => void,
): Promise<RefusedRound> {
  const { status, shard, earlier: restoredTo, key, now: from } = await shardAhead('refused-shard', d, redis, load, 0.15, 0.3);
  const other = 1 - shard;
  const round: RefusedRound = { shard, restoredTo, from, stage: 'shard picked', ok: false };
  started(round);

  // The store of shard `shard` comes back from a backup taken at `restoredTo`.
  for (const m of d.of('mailbox')) await m.process?.stop('SIGTERM');
  await redis.set(key, hex16(restoredTo));
  ctx.log(`shard ${shard}: frontier ${from}; mailbox stopped, the store restored to frontier ${restoredTo} (SET ${key}), mailbox started`);
  for (const m of d.of('mailbox')) await d.start(m, 120_000, '/healthz');
  round.stage = 'mailbox restarted on the restored store';
  const refusal = await until(`the refusal of shard ${shard}`, load, 60_000, async () => refusalOf(await status.shardStatus(shard)));
  round.refusal = refusal;
  round.stage = 'refused; waiting for the other shard to catch up';
  ctx.log(`shard ${shard} refused (${refusal.kind}): ${refusal.reason}`);

  // The restart itself left the other shard a backlog (real delivery lag, which the gate may hold
  // sends for): the hold starts once it has caught up and the gate is open.
  await until(`shard ${other} caught up after the restart, the gate open`, load, 120_000, async () => {
    const s = await status.shardStatus(other);
    return s.lag !== null && s.lag < 10n && (await writerMetric(d, 'qim_admission_closed')) === 0 ? true : null;
  });
  round.stage = 'holding (probe sends)';
  const otherBefore = frontierOf(await status.shardStatus(other)) ?? -1n;
  let held = true;
  const admission = await admissionDuring(d, load, holdMs, async () => {
    const s = await status.shardStatus(shard);
    if (frontierOf(s) !== restoredTo || refusalOf(s) === null) held = false;
  });
  const otherAfter = frontierOf(await status.shardStatus(other)) ?? -1n;
  const endAtRefusal = kafkaEnd(await status.shardStatus(shard));
  round.frontierHeld = held;
  round.otherMoved = `${otherBefore}→${otherAfter}`;
  round.admission = admission;
  ctx.log(
    `shard ${shard}: ${held ? 'refused, frontier held' : 'REFUSAL OR FRONTIER CHANGED'} at ${restoredTo} for ${holdMs} ms; ` +
      `shard ${other}'s frontier ${round.otherMoved}`,
  );
  ctx.log(`shard ${shard}: while refused ${admissionLine(admission)}`);

  // The documented resolution of `group-ahead` (apps/README.md, "Refused shards").
  round.stage = 'resetting the group';
  const tResolve = Date.now();
  const reset = await resetShard(ctx, d, shard);
  round.resetOutput = reset.output;
  round.stage = 'reset; waiting for delivery';
  const target = (endAtRefusal ?? 1n) - 1n;
  round.resumedTo = await until(`shard ${shard} delivering again`, load, 120_000, async () => {
    const s = await status.shardStatus(shard);
    const f = frontierOf(s);
    return refusalOf(s) === null && f !== null && f >= target ? f : null;
  });
  round.resolvedMs = Date.now() - tResolve;
  round.stage = 'delivering again';
  round.ok = refusal.kind === 'group-ahead' && held && admission.ok && otherAfter > otherBefore && reset.code === 0;
  ctx.log(`shard ${shard}: delivering again, frontier ${round.resumedTo} ≥ ${target} in ${round.resolvedMs} ms`);
  return round;
}

export const refusedShard: Drill = {
  name: 'refused-shard',
  summary:
    'one shard refused at start-up (store restored from an older backup) while the other delivers: ' +
    'sends go on being admitted, the documented reset resolves it',
  needs: 'redis',
  run: (ctx) =>
    withShardDrill(ctx, async (d, redis) => {
      let round: RefusedRound | null = null;
      // The round is handed out as soon as it exists, so a fault that stops half-way still reports what it saw.
      const fault = async (load: Load): Promise<void> => void (await refuseOneShard(ctx, d, redis, load, 2 * ADMISSION_MAX_LAG_MS, (r) => (round = r)));
      const lines = (): string[] => {
        const r = round as RefusedRound | null;
        return r === null
          ? ['refused-shard: the fault did not complete']
          : [
              `shard ${r.shard}: frontier ${r.from} restored to ${r.restoredTo} → refused (${r.refusal?.kind}: "${r.refusal?.reason}"); ` +
                `held ${r.frontierHeld}; other shard ${r.otherMoved}; while refused ${r.admission ? admissionLine(r.admission) : '—'}; ` +
                `reset: ${r.resetOutput}; delivering again (frontier ${r.resumedTo}) ${((r.resolvedMs ?? 0) / 1000).toFixed(1)} s after the action — ` +
                `${r.ok ? 'ok' : `FAIL (reached: ${r.stage})`}`,
            ];
      };
      const { pass } = await checkWith(ctx, 'refused-shard', d, shapeOf(ctx.size), fault, lines, () => (round as RefusedRound | null)?.ok === true);
      return pass;
    }),
};
