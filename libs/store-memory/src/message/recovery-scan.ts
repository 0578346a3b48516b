import { InvalidInputError, isTerminal } from '@qim/store-core';
import type { CommitKey, CommitSnapshot } from '@qim/store-core';
import { padU64 } from '../storage/memory-tables';
import { RECOVERY_BUCKET_MS } from './memory-message-backend';
import type { MemoryMessageBackend } from './memory-message-backend';

/**
 * `scanRecoverableCommits` over the hourly recovery index: walks the hour partitions up to the
 * cutoff's hour, re-reads each commit, and keeps only live, complete, non-terminal intents created
 * before the cutoff. A recovery row whose commit is gone (a lost race, or expired) is skipped; a
 * row whose created_at is not the intent's (the losing candidate of a race) is skipped, so each
 * commit appears once. Oldest first, at most `maxItems`.
 */
export function scanRecoverable(
  backend: MemoryMessageBackend,
  now: bigint,
  cutoffMs: bigint,
  maxItems: number,
  load: (key: CommitKey) => CommitSnapshot | null,
): CommitSnapshot[] {
  if (!Number.isInteger(maxItems) || maxItems < 0) throw new InvalidInputError(`maxItems must be a non-negative integer: ${maxItems}`);
  const lastBucket = padU64(cutoffMs / RECOVERY_BUCKET_MS);
  const buckets = backend.recovery
    .partitionKeys('', now)
    .filter((b) => b <= lastBucket)
    .sort();
  const found = new Map<string, CommitSnapshot>();
  for (const bucket of buckets) {
    for (const [, row] of backend.recovery.scan(bucket, now)) {
      if (row.createdAt >= cutoffMs || found.has(row.key)) continue;
      const snapshot = load({ tenantId: row.tenantId, senderId: row.senderId, clientMessageId: row.clientMessageId });
      if (snapshot === null || isTerminal(snapshot.state) || snapshot.intent.createdAt !== row.createdAt) continue;
      found.set(row.key, snapshot);
    }
  }
  return [...found.values()]
    .sort((a, b) => (a.intent.createdAt < b.intent.createdAt ? -1 : a.intent.createdAt > b.intent.createdAt ? 1 : 0))
    .slice(0, maxItems);
}
