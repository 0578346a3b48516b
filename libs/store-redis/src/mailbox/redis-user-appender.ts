import { InvariantViolationError, UnavailableError } from '@qim/store-core';
import type { AppendReport, Clock } from '@qim/store-core';
import type { RedisIo, ScriptCall } from '../redis/redis-io';
import { ScriptCode, errorForCode } from '../redis/script-codes';
import { ScriptReply } from '../redis/script-reply';
import { runBounded } from './bounded-calls';
import { appendEntriesCall } from './mailbox-script-args';
import type { EntryWrite } from './mailbox-script-args';
import { knownMetaOf } from './meta-cache';
import type { MetaCache } from './meta-cache';
import type { PreparedEntry } from './prepared-entry';
import type { RedisRetentionInspector } from './redis-retention-inspector';
import { storedMetaOf } from './stored-retention-meta';
import { fastPathHorizon, planUserAppend } from './user-append-plan';
import type { UserAppendCall, UserAppendContext } from './user-append-plan';
import type { UserKeysCache } from './user-keys-cache';
import { PlainPathWriter } from './plain-path-writer';
import type { PlainBatch } from './plain-path-writer';
import type { WarmDays } from './warm-days';

/** Times a user's append is planned again after its meta compare-and-set lost to a concurrent writer. */
const CAS_RETRIES = 16;
/** Pipelines of append calls in flight at once; each holds `concurrency / PIPELINES_IN_FLIGHT` calls. */
const PIPELINES_IN_FLIGHT = 2;
/**
 * Bounds of one append call (several users of one bucket): entries and argument bytes. A bucket
 * with more is split into several calls; one user's entries always go in one call (its step is
 * atomic), alone when they exceed a bound by themselves.
 */
export const MAX_ENTRIES_PER_CALL = 128;
export const MAX_BYTES_PER_CALL = 1 << 20;

export interface UserAppenderConfig {
  readonly io: RedisIo;
  readonly clock: Clock;
  readonly epoch: number;
  readonly graceMs: bigint;
  /** How far (ms) any two clocks involved may disagree: every fast path keeps it on top of its margin (`fastPathHorizon`). */
  readonly clockSkewAllowanceMs: bigint;
  /** Append-script calls in flight at most (a pipelined stream, never one round trip per entry). */
  readonly concurrency: number;
  readonly cache: MetaCache;
  /** The users' and buckets' key names. */
  readonly userKeys: UserKeysCache;
  readonly inspector: RedisRetentionInspector;
  /** The days this process wrote through the script (null: every entry goes through the script). */
  readonly warm: WarmDays | null;
}

type Work = { readonly script: BucketCall[] } | { readonly plain: PlainBatch };

type Group = readonly PreparedEntry[];

interface Planned {
  readonly group: Group;
  readonly plan: UserAppendCall;
}

/** One append call and the users it carries, in reply order. */
interface BucketCall {
  readonly call: ScriptCall;
  readonly users: readonly Planned[];
}

const groupBytes = (group: Group): number => group.reduce((n, e) => n + e.member.length + 64, 0);

/**
 * Writes validated entries with one `append-entries-v5-1` call per mailbox bucket touched (every
 * user of the bucket in it, split at `MAX_ENTRIES_PER_CALL` / `MAX_BYTES_PER_CALL`), sent as a stream
 * of explicit pipelines with at most `concurrency` calls in flight. Per user the call takes the fast
 * path (proof + entry, meta untouched) when the user's ledger already covers the entries, else the
 * compare-and-set planned with store-core `applyAppend` from the cached meta; a lost compare-and-set
 * answers the stored meta and only that user is planned again.
 */
export class RedisUserAppender {
  private readonly chunk: number;
  private readonly plain: PlainPathWriter;

  constructor(private readonly c: UserAppenderConfig) {
    this.chunk = Math.max(1, Math.floor(c.concurrency / PIPELINES_IN_FLIGHT));
    this.plain = new PlainPathWriter(c);
  }

  async append(groups: readonly Group[], write: EntryWrite): Promise<AppendReport> {
    let pending = groups;
    const total = { written: 0, expired: 0 };
    for (let attempt = 0; attempt < CAS_RETRIES && pending.length > 0; attempt++) {
      const now = this.c.clock.nowMs();
      const retry: Group[] = [];
      const plain: Group[] = [];
      const scripted: Group[] = [];
      for (const g of pending) (write === 'add' && this.plainHolds(g, now) ? plain : scripted).push(g);
      const calls = this.bucketCalls(await this.plan(scripted, now, retry), now, write);
      const work: Work[] = [];
      for (let i = 0; i < calls.length; i += this.chunk) work.push({ script: calls.slice(i, i + this.chunk) });
      for (const batch of this.plain.batches(plain)) work.push({ plain: batch });
      await runBounded(work, PIPELINES_IN_FLIGHT, async (w) => {
        if ('plain' in w) {
          const broken = await this.plain.send(w.plain.commands);
          for (const g of w.plain.groups) {
            if (broken.has(g[0]!.user)) retry.push(g);
            else total.written += g.length;
          }
          return;
        }
        const chunk = w.script;
        const replies = await this.c.io.scriptsPipelined(
          chunk.map((b) => b.call),
          'write',
        );
        replies.forEach((raw, i) => {
          const { users } = chunk[i]!;
          const reply = ScriptReply.of(raw, 'appendBatch');
          if (reply.code !== ScriptCode.OK) throw errorForCode(reply.code, 'appendBatch');
          if (reply.length !== users.length + 1) throw new InvariantViolationError(`appendBatch: ${reply.length - 1} replies for ${users.length} users`);
          users.forEach((planned, u) => {
            const done = this.settle(planned, reply.rest(u + 1)[0], write);
            if (done === null) retry.push(planned.group);
            else {
              total.written += done.written;
              total.expired += done.expired;
            }
          });
        });
      });
      pending = retry;
    }
    if (pending.length > 0) throw new UnavailableError('appendBatch: retention meta kept changing under concurrent writers');
    return total;
  }

  /** Whether `group` may take the plain path (ADR-0022 §5, `WarmDays.holds`). */
  private plainHolds(group: Group, now: bigint): boolean {
    const warm = this.c.warm;
    if (warm === null) return false;
    const meta = this.c.cache.get(group[0]!.user)?.meta;
    if (meta === undefined || meta === null || meta.ledger.some((i) => i.expiresAt <= now)) return false;
    // WarmDays adds the safety margin; the skew comes first: the latest clock that may consume the day.
    return warm.holds(meta, group, now + this.c.clockSkewAllowanceMs);
  }

  private context(group: Group, now: bigint): UserAppendContext {
    const { tenantId, userId, user } = group[0]!;
    return { keys: this.c.userKeys.user(tenantId, userId, user), now, horizon: fastPathHorizon(now, this.c.clockSkewAllowanceMs), graceMs: this.c.graceMs };
  }

  /** The users' plans grouped per bucket, each bucket cut into calls within the bounds. */
  private bucketCalls(planned: readonly Planned[], now: bigint, write: EntryWrite): BucketCall[] {
    const byBucket = new Map<number, Planned[]>();
    for (const p of planned) {
      const list = byBucket.get(p.plan.bucket);
      if (list === undefined) byBucket.set(p.plan.bucket, [p]);
      else list.push(p);
    }
    const calls: BucketCall[] = [];
    for (const [bucket, users] of byBucket) {
      const keys = this.c.userKeys.bucket(bucket);
      let batch: Planned[] = [];
      let entries = 0;
      let bytes = 0;
      const flush = (): void => {
        if (batch.length === 0) return;
        const at = { now, horizon: fastPathHorizon(now, this.c.clockSkewAllowanceMs) };
        calls.push({
          call: appendEntriesCall(
            keys,
            at,
            this.c.epoch,
            write,
            batch.map((p) => p.plan.args),
          ),
          users: batch,
        });
        batch = [];
        entries = 0;
        bytes = 0;
      };
      for (const p of users) {
        const size = groupBytes(p.group);
        if (batch.length > 0 && (entries + p.group.length > MAX_ENTRIES_PER_CALL || bytes + size > MAX_BYTES_PER_CALL)) flush();
        batch.push(p);
        entries += p.group.length;
        bytes += size;
      }
      flush();
    }
    return calls;
  }

  /** The plans of this attempt; users whose known meta has an expired ledger item are inspected first (rare). */
  private async plan(groups: readonly Group[], now: bigint, retry: Group[]): Promise<Planned[]> {
    const planned: Planned[] = [];
    const inspect: Group[] = [];
    for (const group of groups) {
      const plan = planUserAppend(this.context(group, now), group, this.c.cache.get(group[0]!.user));
      if (plan.kind === 'inspect') inspect.push(group);
      else planned.push({ group, plan });
    }
    await runBounded(inspect, this.c.concurrency, async (group) => {
      const { tenantId, userId, user } = group[0]!;
      const known = await this.c.inspector.inspect(tenantId, userId, now);
      if (known === undefined) this.c.cache.forget(user);
      else this.c.cache.set(user, known);
      const plan = known === undefined ? null : planUserAppend(this.context(group, now), group, known);
      if (plan === null || plan.kind === 'inspect') retry.push(group);
      else planned.push({ group, plan });
    });
    return planned;
  }

  /** One user's reply; null when it must be planned again (its meta changed). */
  private settle({ group, plan }: Planned, raw: unknown, write: EntryWrite): AppendReport | null {
    const user = group[0]!.user;
    const reply = ScriptReply.of(raw, 'appendBatch');
    if (reply.code === ScriptCode.OK) {
      if (reply.int(1) === 1) {
        if (reply.length > 2) this.c.cache.set(user, knownMetaOf(storedMetaOf(reply.rest(2))));
        if (write === 'add') this.c.warm?.learn(user, group);
        return { written: group.length, expired: 0 };
      }
      this.c.cache.set(user, plan.after);
      if (write === 'add') this.c.warm?.learn(user, plan.live === null ? group : group.filter((_, i) => plan.live![i] === true));
      return { written: plan.written, expired: plan.expired };
    }
    if (reply.code === ScriptCode.CAS_LOST) {
      this.c.cache.set(user, knownMetaOf(storedMetaOf(reply.rest(1))));
      return null;
    }
    throw errorForCode(reply.code, 'appendBatch');
  }
}
