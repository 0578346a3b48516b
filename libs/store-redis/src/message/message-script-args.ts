import { UNREAD_PRECISE_LIMIT } from '@qim/store-core';
import type { HistoryQuery, Id128, MessageKind } from '@qim/store-core';
import type { CommitKeys, ConversationKeys } from '../keys/redis-keys';
import { msScore, u64ToHex16 } from '../redis/hex64';
import type { ScriptCall } from '../redis/redis-io';

/**
 * Pure argument builders of the MessageStore scripts: each turns typed values into the exact
 * KEYS/ARGV its `.lua` docblock documents. No I/O; unit-tested in `message-script-args.spec.ts`.
 */

/** Everything `claim-commit-v1-3.lua` needs. */
export interface ClaimCommitArgs {
  readonly now: bigint;
  readonly identity: Uint8Array;
  /** SendRequest codec bytes. */
  readonly request: Uint8Array;
  /** Sorted unique recipients, packed (16 bytes each). */
  readonly recipients: Buffer;
  readonly createdAt: bigint;
  readonly auxExpiresAt: bigint;
  readonly graceMs: bigint;
}

export function claimCommitCall(k: CommitKeys, a: ClaimCommitArgs): ScriptCall {
  return {
    script: 'claimCommitV1',
    keys: [k.hash, k.recovery, k.aux],
    args: [
      u64ToHex16(a.now, 'now'),
      Buffer.from(a.identity),
      Buffer.from(a.request),
      a.recipients,
      msScore(a.createdAt),
      u64ToHex16(a.auxExpiresAt, 'aux expiry'),
      msScore(a.auxExpiresAt),
      k.member,
      msScore(a.graceMs),
    ],
  };
}

/** Everything `claim-seq-v1-2.lua` needs. */
export interface ClaimSeqArgs {
  readonly now: bigint;
  readonly identity: Uint8Array;
  readonly messageId: Id128;
  readonly createdAt: bigint;
  readonly auxExpiresAt: bigint;
  readonly graceMs: bigint;
}

export function claimSeqCall(c: ConversationKeys, commitMember: string, a: ClaimSeqArgs): ScriptCall {
  return {
    script: 'claimSeqV1',
    keys: [c.seq, c.seqClaim(commitMember)],
    args: [
      u64ToHex16(a.now, 'now'),
      Buffer.from(a.identity),
      a.messageId,
      u64ToHex16(a.createdAt, 'createdAt'),
      u64ToHex16(a.auxExpiresAt, 'aux expiry'),
      msScore(a.auxExpiresAt),
      msScore(a.graceMs),
    ],
  };
}

export function markRecordedCall(k: CommitKeys, now: bigint, identity: Uint8Array, recipients: Buffer, intent: Buffer): ScriptCall {
  return { script: 'markRecordedV1', keys: [k.hash], args: [u64ToHex16(now, 'now'), Buffer.from(identity), recipients, intent] };
}

export function markOutboxedCall(k: CommitKeys, now: bigint, expectedIntent: Buffer, newIntent: Buffer): ScriptCall {
  return { script: 'markOutboxedV1', keys: [k.hash], args: [u64ToHex16(now, 'now'), expectedIntent, newIntent] };
}

export function markCommittedCall(k: CommitKeys, now: bigint): ScriptCall {
  return { script: 'markCommittedV1', keys: [k.hash, k.recovery], args: [u64ToHex16(now, 'now'), k.member] };
}

export function markPublishedCommittedCall(k: CommitKeys, now: bigint, expectedIntent: Buffer, newIntent: Buffer): ScriptCall {
  return { script: 'markPublishedCommittedV1', keys: [k.hash, k.recovery], args: [u64ToHex16(now, 'now'), expectedIntent, newIntent, k.member] };
}

/** A history index member: seq | ephemeral expiry (zeros = never) | countable | sender (65 chars). */
export function historyIndexMember(seq: bigint, expiresAt: bigint | null, countable: boolean, senderId: Id128): string {
  return `${u64ToHex16(seq, 'seq')}${u64ToHex16(expiresAt ?? 0n, 'expiry')}${countable ? '1' : '0'}${senderId}`;
}

/** Whether a message counts as unread for someone other than its sender. */
export function isCountable(kind: MessageKind, control: boolean): boolean {
  return !control && (kind === 'normal' || kind === 'edited');
}

export interface PutRecordArgs {
  readonly seq: bigint;
  readonly record: Buffer;
  /** Absolute expiry (ms) of an Ephemeral message; null = never. */
  readonly expiresAt: bigint | null;
  readonly countable: boolean;
  readonly senderId: Id128;
  readonly graceMs: bigint;
  readonly now: bigint;
  /** The commit's seq claim as the intent implies it (`seqClaimBody`). */
  readonly claim: Buffer;
}

export function putRecordCall(c: ConversationKeys, commitMember: string, a: PutRecordArgs): ScriptCall {
  return {
    script: 'putRecordV1',
    keys: [c.index, c.record(a.seq), c.expiry, c.seqClaim(commitMember)],
    args: [
      u64ToHex16(a.seq, 'seq'),
      historyIndexMember(a.seq, a.expiresAt, a.countable, a.senderId),
      a.record,
      a.expiresAt === null ? '' : msScore(a.expiresAt),
      msScore(a.graceMs),
      u64ToHex16(a.now, 'now'),
      a.claim,
    ],
  };
}

export function historyPageCall(c: ConversationKeys, q: HistoryQuery, now: bigint): ScriptCall {
  return {
    script: 'historyPageV1',
    keys: [c.index],
    args: [
      q.direction,
      q.anchor === null ? '' : u64ToHex16(q.anchor, 'anchor'),
      String(q.maxItems),
      String(q.maxBytes),
      u64ToHex16(now, 'now'),
      c.recordPrefix,
    ],
  };
}

export function conversationSummaryCall(c: ConversationKeys, now: bigint, readSeq: bigint, viewer: Id128): ScriptCall {
  return {
    script: 'conversationSummaryV1',
    keys: [c.index],
    args: [u64ToHex16(now, 'now'), u64ToHex16(readSeq, 'readSeq'), String(UNREAD_PRECISE_LIMIT), viewer, c.recordPrefix],
  };
}

export interface CommitShardKeys {
  readonly recovery: string;
  readonly aux: string;
  readonly commitPrefix: string;
}

export function scanRecoveryCall(s: CommitShardKeys, cutoffMs: bigint, now: bigint, maxItems: number, examineCap: number): ScriptCall {
  return {
    script: 'scanRecoveryV1',
    keys: [s.recovery],
    args: [msScore(cutoffMs), u64ToHex16(now, 'now'), String(maxItems), s.commitPrefix, String(examineCap)],
  };
}

export function gcCommitAuxCall(s: CommitShardKeys, now: bigint, limit: number): ScriptCall {
  return { script: 'gcCommitAuxV1', keys: [s.aux, s.recovery], args: [msScore(now), u64ToHex16(now, 'now'), String(limit), s.commitPrefix] };
}

export function gcHistoryCall(c: ConversationKeys, now: bigint, limit: number): ScriptCall {
  return { script: 'gcHistoryV1', keys: [c.index, c.expiry], args: [msScore(now), u64ToHex16(now, 'now'), String(limit), c.recordPrefix] };
}
