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
  resetShard,
  shardAhead,
  stallOf,
  until,
  withShardDrill,
} from './shard-faults';
import { shapeOf } from './sizes';

/**
 * The source-hole drill (issue 12, item 4) in the shard-frontier design (ADR-0022): a range of
 * dispatch offsets whose application the store no longer proves while the shard's Kafka position has
 * passed it. Mechanism: under a running mailbox, the mailbox store loses the frontier writes of its
 * last pages (as a Redis failover to a lagging replica, or an AOF that lost its last second, would) —
 * the drill sets the shard's frontier key back to a value it read earlier. Nothing in the services is
 * test-only: the next page the consumer hands over starts above `F + 1`, `applyPage` refuses it
 * (`FRONTIER_GAP`), the shard stalls and retries with backoff. The drill then checks the stall is
 * shown by `GET /v1/shards/{shard}/status` with its offset, that the frontier does not move while
 * dispatches keep arriving, applies the documented operator action (stop the mailboxes,
 * `admin reset-mailbox-offsets --shard N`, start them) and checks the shard resumes past the hole;
 * the checker then finds nothing lost and nothing duplicated.
 *
 * Redis mode only for the injection (a Cassandra frontier row cannot be moved back: frontier writes
 * carry `USING TIMESTAMP toOffset + 1`, so a lower value loses); what the services do with the hole
 * (worker, `planPage`, status route, guard, reset command) is the same code for both backends.
 */

interface HoleRound {
  readonly shard: number;
  readonly rewoundTo: bigint;
  readonly from: bigint;
  stallOffset?: bigint;
  stallReason?: string;
  frontierHeld?: boolean;
  endGrew?: string;
  resetOutput?: string;
  resolvedMs?: number;
  resumedTo?: bigint;
  /** What the writer did during the stall. */
  admission?: AdmissionWhileStalled;
  ok: boolean;
}

async function oneHole(ctx: DrillContext, d: Deployment, redis: Redis, load: Load, from: number, at: number, holdMs: number): Promise<HoleRound> {
  const { status, shard, earlier: rewoundTo, key, now } = await shardAhead('source-hole', d, redis, load, from, at);
  const round: HoleRound = { shard, rewoundTo, from: now, ok: false };
  ctx.log(`shard ${shard}: frontier ${round.from}; the store loses the frontier writes after ${rewoundTo} (SET ${key} back to ${rewoundTo})`);

  // A page in flight may still raise the frontier over the rewind (its frontier write keeps the
  // highest): rewind again until the worker meets the hole.
  let stall: { offset: bigint; reason: string } | null = null;
  for (let attempt = 1; stall === null; attempt += 1) {
    await redis.set(key, hex16(rewoundTo));
    stall = await until(`the stall of shard ${shard}`, load, 60_000, async () => {
      const s = await status.shardStatus(shard);
      if (frontierOf(s) !== rewoundTo) return { offset: -1n, reason: 'frontier moved over the rewind' };
      return stallOf(s);
    });
    if (stall.offset < 0n) {
      if (attempt >= 20) throw new Error('source-hole: the frontier kept moving over the rewind (20 tries)');
      ctx.log(`shard ${shard}: a page in flight moved the frontier over the rewind; rewinding again`);
      stall = null;
    }
  }
  round.stallOffset = stall.offset;
  round.stallReason = stall.reason;
  ctx.log(`shard ${shard} stalled at page offset ${stall.offset} (frontier ${rewoundTo}): ${stall.reason}`);

  // While stalled: the frontier stays, the stall keeps its offset, dispatches keep arriving — and
  // the writer goes on accepting sends (a stalled partition is not load: ADR-0023's amendment), one
  // probe send a second without retries, all answered OK, the gate never closed, the stall reported.
  const first = await status.shardStatus(shard);
  const endBefore = kafkaEnd(first);
  let held = true;
  const stallAt = stall.offset;
  const admission = await admissionDuring(d, load, holdMs, async () => {
    const s = await status.shardStatus(shard);
    if (frontierOf(s) !== rewoundTo || stallOf(s)?.offset !== stallAt) held = false;
  });
  const endAfter = kafkaEnd(await status.shardStatus(shard));
  round.frontierHeld = held;
  round.endGrew = `${endBefore}→${endAfter}`;
  round.admission = admission;
  ctx.log(`shard ${shard}: ${held ? 'frontier held' : 'FRONTIER MOVED'} at ${rewoundTo} for ${holdMs} ms; partition end ${round.endGrew}`);
  ctx.log(`shard ${shard}: during the stall ${admissionLine(admission)}`);

  // The operator action (apps/README.md, "Operations: mailbox", stalled shard).
  const tResolve = Date.now();
  const reset = await resetShard(ctx, d, shard);
  round.resetOutput = reset.output;
  const resumed = await until(`shard ${shard} past the hole`, load, 120_000, async () => {
    const s = await status.shardStatus(shard);
    const f = frontierOf(s);
    return s.stall === null && f !== null && f >= stall.offset ? f : null;
  });
  round.resolvedMs = Date.now() - tResolve;
  round.resumedTo = resumed;
  round.ok = reset.code === 0 && held && admission.ok && stall.offset > rewoundTo + 1n && endAfter !== null && endBefore !== null && endAfter > endBefore;
  ctx.log(`shard ${shard}: resumed, frontier ${resumed} ≥ ${stall.offset} in ${round.resolvedMs} ms`);
  return round;
}

export const sourceHole: Drill = {
  name: 'source-hole',
  summary:
    'the mailbox store loses its last frontier writes under a running mailbox: ' +
    'the shard stalls at the hole while sends go on being admitted, the operator action resolves it',
  needs: 'redis',
  run: (ctx) =>
    withShardDrill(ctx, async (d, redis) => {
      const windows =
        ctx.size === 'short'
          ? [[0.15, 0.35]]
          : [
              [0.1, 0.25],
              [0.5, 0.65],
            ];
      // The stall outlasts the admission bound twice over: a gate that counted the stalled partition would close within it.
      const holdMs = 2 * ADMISSION_MAX_LAG_MS;
      const rounds: HoleRound[] = [];
      const fault = async (load: Load): Promise<void> => {
        for (const [from, at] of windows) rounds.push(await oneHole(ctx, d, redis, load, from!, at!, holdMs));
      };
      const lines = (): string[] =>
        rounds.map(
          (r) =>
            `shard ${r.shard}: frontier ${r.from} set back to ${r.rewoundTo} → stalled at page ${r.stallOffset} ("${r.stallReason}"); ` +
            `frontier held ${r.frontierHeld} (partition end ${r.endGrew}); during the stall ${r.admission ? admissionLine(r.admission) : '—'}; ` +
            `reset: ${r.resetOutput}; past the hole (frontier ${r.resumedTo}) ` +
            `${((r.resolvedMs ?? 0) / 1000).toFixed(1)} s after the action — ${r.ok ? 'ok' : 'FAIL'}`,
        );
      const { pass } = await checkWith(
        ctx,
        'source-hole',
        d,
        shapeOf(ctx.size),
        fault,
        lines,
        () => rounds.length === windows.length && rounds.every((r) => r.ok),
      );
      return pass;
    }),
};
