import { InvalidInputError, commitKeyString, parseId128 } from '@qim/store-core';
import type { Clock, CommitKey, CommitSnapshot, MessageRecoveryScan } from '@qim/store-core';
import { COMMIT_SHARDS } from '../keys/redis-keys';
import type { RedisKeys } from '../keys/redis-keys';
import type { RedisIo } from '../redis/redis-io';
import { ScriptReply } from '../redis/script-reply';
import { scanRecoveryCall } from './message-script-args';
import type { RedisCommitOps } from './redis-commit-ops';
import { CLAIMED, snapshotOf } from './stored-commit';

/** The recovery scan over Redis: one `scan-recovery` read per commit shard, merged oldest first. */
export class RedisRecoveryScan implements MessageRecoveryScan {
  constructor(
    private readonly io: RedisIo,
    private readonly keys: RedisKeys,
    private readonly clock: Clock,
    private readonly commits: RedisCommitOps,
  ) {}

  async scanRecoverableCommits(cutoffMs: bigint, maxItems: number): Promise<CommitSnapshot[]> {
    if (!Number.isInteger(maxItems) || maxItems < 1) throw new InvalidInputError('maxItems must be an integer ≥ 1');
    const now = this.clock.nowMs();
    const cap = Math.max(1000, maxItems * 8);
    const calls = Array.from({ length: COMMIT_SHARDS }, (_, s) => scanRecoveryCall(this.keys.commitShard(s), cutoffMs, now, maxItems, cap));
    const found: CommitSnapshot[] = [];
    const claimed: CommitKey[] = [];
    for (const raw of await this.io.scripts(calls, 'read')) {
      const reply = ScriptReply.of(raw, 'scanRecoverableCommits');
      for (let i = 2; i < reply.length; i += 3) {
        if (reply.str(i) === CLAIMED) claimed.push(commitKeyOfMember(reply.str(i + 1)));
        else found.push(snapshotOf(reply.buf(i), reply.buf(i + 2)));
      }
    }
    // A CLAIMED commit is RESERVED only with its seq claim; without one no seq was spent: skipped.
    for (const loaded of await Promise.all(claimed.map((key) => this.commits.load(key)))) {
      if (loaded !== null && loaded.snapshot.state === 'RESERVED') found.push(loaded.snapshot);
    }
    return found
      .filter((s) => s.intent.createdAt < cutoffMs)
      .sort((a, b) =>
        a.intent.createdAt !== b.intent.createdAt
          ? a.intent.createdAt < b.intent.createdAt
            ? -1
            : 1
          : commitKeyString(a.intent.key) < commitKeyString(b.intent.key)
            ? -1
            : 1,
      )
      .slice(0, maxItems);
  }
}

/** The commit key of a recovery index member (96 hex: tenant, sender, client message id). */
function commitKeyOfMember(member: string): CommitKey {
  return { tenantId: parseId128(member.slice(0, 32)), senderId: parseId128(member.slice(32, 64)), clientMessageId: parseId128(member.slice(64, 96)) };
}
