import { FrontierGapError, InvalidStateError, InvariantViolationError, UnavailableError, dispatchDedupeExpiry, pageDecision, planPage } from '@qim/store-core';
import type { Clock, DispatchPage, MailboxGcConfig, PageReport, ShardEpoch, ShardFrontier } from '@qim/store-core';
import type { OldLayoutFrontier, ShardFrontierKeys } from '../keys/redis-keys';
import { u64FromHex16 } from '../redis/hex64';
import type { RedisIo } from '../redis/redis-io';
import { ScriptCode, errorForCode } from '../redis/script-codes';
import { ScriptReply } from '../redis/script-reply';
import { SimulatedCrashError } from './redis-mailbox-faults';
import type { MailboxFaults } from './redis-mailbox-faults';
import { advanceFrontierCall, recordDispatchesCall } from './mailbox-script-args';
import { pageOutcomes } from './page-outcomes';
import type { CanonicalSight } from './page-outcomes';
import { groupByUser, prepareDispatchEntries } from './prepared-entry';
import type { PreparedEntry } from './prepared-entry';
import type { RedisUserAppender } from './redis-user-appender';
import type { UserKeysCache } from './user-keys-cache';

export interface PageApplierConfig {
  readonly io: RedisIo;
  readonly keys: ShardFrontierKeys;
  readonly clock: Clock;
  readonly shardEpoch: ShardEpoch;
  readonly gc: MailboxGcConfig;
  readonly graceMs: bigint;
  readonly appender: RedisUserAppender;
  /** The entries' bucket keys, for the WAIT before the frontier write (replica acks on). */
  readonly userKeys: UserKeysCache;
  readonly faults: MailboxFaults | undefined;
}

const frontierOf = (v: Buffer | null): bigint | null => (v === null || v.length === 0 ? null : u64FromHex16(v, 'shard frontier'));

const OLD_LAYOUTS: Record<OldLayoutFrontier['layout'], string> = {
  'per-user-layout': 'the per-user-tag Redis layout ({mu:<tenant><user>} keys)',
  'entry-key-layout': 'the bucketed Redis layout with one key per entry (entry:<seq>, {mb:<bucket>}:u:<tenant><user>: keys)',
};

/**
 * The refusal of a shard and epoch that an older layout applied: its entries are under keys this
 * build never reads, so continuing would hide them. Greenfield, as for the Cassandra tables
 * (ADR-0022 §7): a new epoch starts in the new layout.
 */
export function oldLayoutError(se: ShardEpoch, layout: OldLayoutFrontier['layout']): InvalidStateError {
  return new InvalidStateError(
    `mailbox shard ${se.shard} epoch ${se.epoch} was applied by ${OLD_LAYOUTS[layout]}: ` +
      'this build keeps each entry inside its day index ({mb:<bucket>}:u2:<tenant><user>:day:<epoch>:<day>) — deploy it with a new ' +
      "QIM_MAILBOX_EPOCH or under a new QIM_REDIS_NAMESPACE, or delete the old namespace's mailbox keys after draining the mailbox",
  );
}

function layoutOf(reply: ScriptReply): OldLayoutFrontier['layout'] {
  const name = reply.buf(1).toString('latin1');
  if (name !== 'per-user-layout' && name !== 'entry-key-layout') throw new InvariantViolationError(`applyPage: unknown old layout ${JSON.stringify(name)}`);
  return name;
}

/**
 * `applyPage` in three client round trips (ADR-0022 §3): (1) `record-dispatches-v4-1` on the shard
 * tag reads the frontier, decides gap / behind / apply and records the candidates' first sights
 * (and refuses a shard an older layout applied); (2) the applied records' entries, one
 * pipelined `append-entries-v5-1` per mailbox bucket touched, bounded in flight; (3)
 * `advance-frontier-v2-1` keeps the highest frontier, only on the server process (1) ran on and over
 * the frontier (1) read (lost writes in between: the page fails, the frontier stays) and, with replica
 * acks on a cluster, only once the entries' other primaries have them on a replica. Everything the page could refuse
 * (shape, shard, entries) is checked before (1); the frontier decision is store-core `planPage`'s.
 */
export class RedisPageApplier {
  /**
   * Whether this store has seen the frontier exist (read or written). A frontier never goes back,
   * so one that vanished afterwards was lost with the writes below it (a restored backup, a
   * promoted replica, keys removed): a page read against "no frontier" would then be applied
   * wherever it starts and cross that hole. Refused instead (`FrontierGapError`); a new process's
   * shard check compares the frontier with the group's committed offset and names the fix.
   */
  private sawFrontier = false;

  constructor(private readonly c: PageApplierConfig) {}

  private lostFrontier(what: string): FrontierGapError {
    const se = this.c.shardEpoch;
    return new FrontierGapError(
      `shard ${se.shard} epoch ${se.epoch}: ${what} — the Redis server lost acknowledged writes ` +
        '(a restart under appendfsync everysec, a restored backup, a promoted replica, keys removed); nothing is applied across the hole ' +
        "(restart the mailbox: its shard check names the offsets' reset)",
    );
  }

  async applyPage(page: DispatchPage): Promise<PageReport> {
    const { shardEpoch, gc } = this.c;
    const plan = planPage(page, shardEpoch, null);
    if (plan.kind !== 'apply') throw new InvariantViolationError('a page without frontier cannot be behind');
    const prepared = new Map<bigint, PreparedEntry[]>();
    for (const c of plan.candidates) prepared.set(c.offset, prepareDispatchEntries(c.record, shardEpoch.epoch, c.offset, gc.entryRetentionMs, this.c.graceMs));
    const candidates = plan.candidates.map((c) => ({
      dispatchId: c.record.dispatchId,
      offset: c.offset,
      digest: c.digest,
      dedupeExpiresAt: dispatchDedupeExpiry(c.record.createdAt, gc.dispatchDedupeMs),
    }));
    const call = recordDispatchesCall(this.c.keys, shardEpoch.epoch, {
      now: this.c.clock.nowMs(),
      graceMs: this.c.graceMs,
      fromOffset: page.fromOffset,
      toOffset: page.toOffset,
      candidates,
    });
    const reply = ScriptReply.of(await this.c.io.script(call, 'write'), 'applyPage: dispatch index');
    if (reply.code === ScriptCode.INVALID_STATE) throw oldLayoutError(shardEpoch, layoutOf(reply));
    if (reply.code !== ScriptCode.OK && reply.code !== ScriptCode.ALREADY && reply.code !== ScriptCode.FRONTIER_GAP)
      throw errorForCode(reply.code, 'applyPage: dispatch index');
    const before = frontierOf(reply.bufOrNull(1));
    if (before === null && this.sawFrontier) throw this.lostFrontier('the frontier this store saw is gone');
    if (before !== null) this.sawFrontier = true;
    // The plan above stands: only the range is decided again, on the frontier the script read (a gap throws here, as planPage would).
    const decision = pageDecision(page, shardEpoch, before);
    const scriptSays = reply.code === ScriptCode.OK ? 'apply' : reply.code === ScriptCode.ALREADY ? 'behind' : 'gap';
    if (decision !== scriptSays) throw new InvariantViolationError(`applyPage: the script decided ${scriptSays}, store-core ${decision} (frontier ${before})`);
    if (decision === 'behind') return { frontier: before!, wrote: false, outcomes: [], entriesWritten: 0, entriesExpired: 0 };

    const runId = reply.buf(2).toString('latin1');
    const canonical: CanonicalSight[] = plan.candidates.map((_, i) => ({
      offset: u64FromHex16(reply.buf(3 + 2 * i), 'canonical offset'),
      digest: reply.buf(4 + 2 * i),
    }));
    const { outcomes, applied } = pageOutcomes(plan, canonical);
    let entries = applied.flatMap((c) => prepared.get(c.offset)!);
    const crashAfter = this.c.faults?.crashAfterEntries;
    if (crashAfter !== undefined) entries = entries.slice(0, crashAfter);
    const report = await this.c.appender.append(groupByUser(entries), 'add');
    if (crashAfter !== undefined) throw new SimulatedCrashError(`simulated crash after ${entries.length} entries of page ${page.fromOffset}…${page.toOffset}`);
    if (this.c.faults?.crashBeforeFrontier === true)
      throw new SimulatedCrashError(`simulated crash before the frontier write of page ${page.fromOffset}…${page.toOffset}`);
    // Replica acks on (ADR-0038): the entries reach a replica before the frontier that vouches for them.
    if (this.c.io.replicaAcks.min > 0) await this.c.io.replicatedBefore(this.bucketKeys(entries), this.c.keys.frontier, 'applyPage: entries');
    await this.c.faults?.beforeFrontierWrite?.();

    const advance = advanceFrontierCall(this.c.keys, { offset: page.toOffset, fromOffset: page.fromOffset, expected: before, runId });
    const moved = ScriptReply.of(await this.c.io.script(advance, 'write'), 'applyPage: frontier');
    if (moved.code === ScriptCode.CAS_LOST) {
      throw new UnavailableError(
        `applyPage ${page.fromOffset}…${page.toOffset}: the Redis server restarted (run id ${runId} → ${moved.buf(1).toString('latin1')}) after the page's ` +
          'entries were acknowledged; they may be lost, so the frontier was not moved and the page must be applied again',
      );
    }
    if (moved.code === ScriptCode.FRONTIER_GAP) {
      const now = moved.buf(1).toString('latin1');
      throw this.lostFrontier(`the frontier went back from ${before ?? 'none'} (read at the page's start) to ${now === '' ? 'none' : BigInt(`0x${now}`)}`);
    }
    if (moved.code !== ScriptCode.OK && moved.code !== ScriptCode.ALREADY) throw errorForCode(moved.code, 'applyPage: frontier');
    this.sawFrontier = true;
    return { frontier: u64FromHex16(moved.buf(1), 'shard frontier'), wrote: true, outcomes, entriesWritten: report.written, entriesExpired: report.expired };
  }

  /** One key of each mailbox bucket `entries` were written to. */
  private bucketKeys(entries: readonly PreparedEntry[]): string[] {
    const buckets = new Set<number>();
    for (const e of entries) buckets.add(this.c.userKeys.user(e.tenantId, e.userId, e.user).bucket);
    return [...buckets].map((b) => this.c.userKeys.bucket(b).key);
  }

  /** The frontier: one MGET (an older layout's frontier of the epoch, same tag, refuses). */
  async frontier(): Promise<ShardFrontier> {
    const old = this.c.keys.oldLayoutFrontiers;
    const [raw] = await this.c.io.commands([['MGET', this.c.keys.frontier, ...old.map((o) => o.key)]], 'read');
    const [current, ...olds] = raw as (Buffer | null)[];
    const found = old.find((_, i) => olds[i] !== null && olds[i] !== undefined);
    if (found !== undefined) throw oldLayoutError(this.c.shardEpoch, found.layout);
    const offset = frontierOf(current ?? null);
    if (offset !== null) this.sawFrontier = true;
    return { offset };
  }
}
