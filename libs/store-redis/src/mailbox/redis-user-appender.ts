import { UnavailableError } from '@qim/store-core';
import type { AppendReport, Clock } from '@qim/store-core';
import type { RedisKeys } from '../keys/redis-keys';
import type { RedisIo } from '../redis/redis-io';
import { ScriptCode, errorForCode } from '../redis/script-codes';
import { ScriptReply } from '../redis/script-reply';
import { runBounded } from './bounded-calls';
import { knownMetaOf } from './meta-cache';
import type { MetaCache } from './meta-cache';
import type { PreparedEntry } from './prepared-entry';
import type { RedisRetentionInspector } from './redis-retention-inspector';
import { storedMetaOf } from './stored-retention-meta';
import { planUserAppend } from './user-append-plan';
import type { UserAppendCall, UserAppendContext } from './user-append-plan';

/** Times a user's append is planned again after its meta compare-and-set lost to a concurrent writer. */
const CAS_RETRIES = 16;
/** Pipelines of append calls in flight at once; each holds `concurrency / PIPELINES_IN_FLIGHT` calls. */
const PIPELINES_IN_FLIGHT = 2;

export interface UserAppenderConfig {
  readonly io: RedisIo;
  readonly keys: RedisKeys;
  readonly clock: Clock;
  readonly epoch: number;
  readonly graceMs: bigint;
  /** Append-script calls in flight at most (a pipelined stream, never one round trip per entry). */
  readonly concurrency: number;
  readonly cache: MetaCache;
  readonly inspector: RedisRetentionInspector;
}

type Group = readonly PreparedEntry[];

interface Planned {
  readonly group: Group;
  readonly plan: UserAppendCall;
}

/**
 * Writes validated entries, one `append-entries-v2-1` call per user (its tag), sent as a stream of
 * explicit pipelines with at most `concurrency` calls in flight. Each call takes the fast path
 * (proof + entry, meta untouched) when the user's ledger already covers the entries, else the
 * compare-and-set planned with store-core `applyAppend` from the cached meta; a lost compare-and-set
 * answers the stored meta and only that user is planned again.
 */
export class RedisUserAppender {
  private readonly chunk: number;

  constructor(private readonly c: UserAppenderConfig) {
    this.chunk = Math.max(1, Math.floor(c.concurrency / PIPELINES_IN_FLIGHT));
  }

  async append(groups: readonly Group[]): Promise<AppendReport> {
    let pending = groups;
    const total = { written: 0, expired: 0 };
    for (let attempt = 0; attempt < CAS_RETRIES && pending.length > 0; attempt++) {
      const now = this.c.clock.nowMs();
      const retry: Group[] = [];
      const planned = await this.plan(pending, now, retry);
      const chunks: Planned[][] = [];
      for (let i = 0; i < planned.length; i += this.chunk) chunks.push(planned.slice(i, i + this.chunk));
      await runBounded(chunks, PIPELINES_IN_FLIGHT, async (chunk) => {
        const replies = await this.c.io.scriptsPipelined(
          chunk.map((p) => p.plan.call),
          'write',
        );
        replies.forEach((raw, i) => {
          const done = this.settle(chunk[i]!, raw);
          if (done === null) retry.push(chunk[i]!.group);
          else {
            total.written += done.written;
            total.expired += done.expired;
          }
        });
      });
      pending = retry;
    }
    if (pending.length > 0) throw new UnavailableError('appendBatch: retention meta kept changing under concurrent writers');
    return total;
  }

  private context(group: Group, now: bigint): UserAppendContext {
    return { keys: this.c.keys.user(group[0]!.tenantId, group[0]!.userId), now, epoch: this.c.epoch, graceMs: this.c.graceMs };
  }

  /** The calls of this attempt; users whose known meta has an expired ledger item are inspected first (rare). */
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
  private settle({ group, plan }: Planned, raw: unknown): AppendReport | null {
    const user = group[0]!.user;
    const reply = ScriptReply.of(raw, 'appendBatch');
    if (reply.code === ScriptCode.OK) {
      if (reply.int(1) === 1) {
        if (reply.length > 2) this.c.cache.set(user, knownMetaOf(storedMetaOf(reply.rest(2))));
        return { written: group.length, expired: 0 };
      }
      this.c.cache.set(user, plan.after);
      return { written: plan.written, expired: plan.expired };
    }
    if (reply.code === ScriptCode.CAS_LOST) {
      this.c.cache.set(user, knownMetaOf(storedMetaOf(reply.rest(1))));
      return null;
    }
    throw errorForCode(reply.code, 'appendBatch');
  }
}
