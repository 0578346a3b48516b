import type { Id128 } from '@qim/store-core';
import type { ShardKeys, UserKeys } from '../keys/redis-keys';
import { msScore, u64ToHex16 } from '../redis/hex64';
import type { ScriptArg, ScriptCall } from '../redis/redis-io';

/**
 * Pure argument builders of the MailboxStore scripts (KEYS/ARGV exactly as each `.lua` docblock
 * documents). No I/O; unit-tested in `mailbox-script-args.spec.ts`.
 */

/** One entry of `append-entries-1.lua`. */
export interface AppendEntryArg {
  readonly epoch: number;
  readonly day: number;
  readonly seq: bigint;
  readonly expiresAt: bigint;
  /** False for an expired replay: only its bucket proof is written. */
  readonly live: boolean;
  readonly bytes: Buffer;
}

/** A proof day no ledger item refers to any more, with the expiry its physical clean-up starts from. */
export interface ReleasedDay {
  readonly day: number;
  readonly expiresAt: bigint;
}

export interface AppendEntriesArgs {
  readonly now: bigint;
  readonly graceMs: bigint;
  /** The five raw meta values as read (or `NO_META`). */
  readonly expected: readonly ScriptArg[];
  /** The five new meta values, or null when the meta does not change. */
  readonly next: readonly ScriptArg[] | null;
  readonly liveDays: readonly number[];
  readonly released: readonly ReleasedDay[];
  readonly entries: readonly AppendEntryArg[];
}

const releasedList = (r: readonly ReleasedDay[]): string => r.map((d) => `${d.day}:${msScore(d.expiresAt)}`).join(',');

export function appendEntriesCall(u: UserKeys, a: AppendEntriesArgs): ScriptCall {
  const perEntry = a.entries.flatMap((e) => [String(e.epoch), String(e.day), u64ToHex16(e.seq, 'seq'), u64ToHex16(e.expiresAt, 'expiry'), msScore(e.expiresAt), e.live ? '1' : '0', e.bytes]);
  return {
    script: 'appendEntries',
    keys: [u.meta],
    args: [
      u64ToHex16(a.now, 'now'),
      u.prefix,
      msScore(a.graceMs),
      ...a.expected,
      ...(a.next ?? ['', '', '', '', '']),
      a.liveDays.join(','),
      releasedList(a.released),
      String(a.entries.length),
      ...perEntry,
    ],
  };
}

export function inspectRetentionCall(u: UserKeys, graceMs: bigint, expected: readonly ScriptArg[], next: readonly ScriptArg[], released: readonly ReleasedDay[]): ScriptCall {
  return { script: 'inspectRetention', keys: [u.meta], args: [u.prefix, msScore(graceMs), ...expected, ...next, releasedList(released)] };
}

export function rangeScanCall(u: UserKeys, now: bigint, after: bigint, upTo: bigint, max: number, epoch: number): ScriptCall {
  return {
    script: 'rangeScan',
    keys: [u.meta, u.trim],
    args: [u64ToHex16(now, 'now'), u64ToHex16(after, 'after'), u64ToHex16(upTo, 'upTo'), String(max), String(epoch), u.prefix],
  };
}

export function truncateBeforeCall(u: UserKeys, seq: bigint): ScriptCall {
  return { script: 'truncateBefore', keys: [u.trim], args: [u64ToHex16(seq, 'trim')] };
}

/** Lanes that declare chunks, as "lane:count,…", and the total number of chunks. */
export function declaredChunks(chunkCounts: readonly number[]): { list: string; total: number } {
  const parts: string[] = [];
  let total = 0;
  chunkCounts.forEach((n, lane) => {
    if (n > 0) parts.push(`${lane}:${n}`);
    total += n;
  });
  return { list: parts.join(','), total };
}

export interface BeginDispatchArgs {
  readonly now: bigint;
  readonly offset: bigint;
  readonly dispatchId: Id128;
  readonly digest: Uint8Array;
  readonly manifest: Buffer;
  readonly mailboxSeq: bigint;
  /** Chunks declared per lane (index = lane). */
  readonly chunkCounts: readonly number[];
}

export function beginDispatchCall(s: ShardKeys, a: BeginDispatchArgs): ScriptCall {
  const { list, total } = declaredChunks(a.chunkCounts);
  return {
    script: 'beginDispatch',
    keys: [s.dispatch(a.dispatchId), s.sourceIndex, s.completedIndex],
    args: [u64ToHex16(a.now, 'now'), u64ToHex16(a.offset, 'offset'), a.dispatchId, Buffer.from(a.digest), a.manifest, u64ToHex16(a.mailboxSeq, 'mailbox seq'), list, String(total), s.prefix, msScore(a.now)],
  };
}

export interface ReceiptArgs {
  readonly dispatchId: Id128;
  readonly canonicalOffset: bigint;
  readonly mailboxSeq: bigint;
  readonly digest: Uint8Array;
}

export function markChunkCompletedCall(s: ShardKeys, now: bigint, r: ReceiptArgs, lane: number, chunkId: number): ScriptCall {
  return {
    script: 'markChunkCompleted',
    keys: [s.dispatch(r.dispatchId), s.completedIndex],
    args: [u64ToHex16(now, 'now'), msScore(now), r.dispatchId, u64ToHex16(r.canonicalOffset, 'offset'), u64ToHex16(r.mailboxSeq, 'mailbox seq'), Buffer.from(r.digest), String(lane), String(chunkId), s.prefix],
  };
}

export function dispatchReadCall(s: ShardKeys, now: bigint, d: Id128): ScriptCall {
  return { script: 'dispatchRead', keys: [s.dispatch(d)], args: [u64ToHex16(now, 'now'), d, s.prefix] };
}

export function chunkCompletedCall(s: ShardKeys, now: bigint, d: Id128, lane: number, chunkId: number): ScriptCall {
  return { script: 'chunkCompleted', keys: [s.dispatch(d)], args: [u64ToHex16(now, 'now'), d, `${lane}:${chunkId}`, s.prefix] };
}

const hexOrEmpty = (v: bigint | null, what: string): string => (v === null ? '' : u64ToHex16(v, what));

export function laneWatermarkCall(s: ShardKeys, now: bigint, lane: number): ScriptCall {
  return { script: 'laneWatermark', keys: [s.watermarks, s.sourceIndex], args: [u64ToHex16(now, 'now'), String(lane), s.prefix] };
}

export function advanceWatermarkCall(s: ShardKeys, now: bigint, lane: number, expectedPrev: bigint | null, offset: bigint): ScriptCall {
  return {
    script: 'advanceWatermark',
    keys: [s.watermarks, s.sourceIndex],
    args: [u64ToHex16(now, 'now'), String(lane), hexOrEmpty(expectedPrev, 'expectedPrev'), u64ToHex16(offset, 'offset'), s.prefix],
  };
}

export function advanceFloorCall(s: ShardKeys, lane: number, expectedFloor: bigint | null, newFloor: bigint): ScriptCall {
  return { script: 'advanceFloor', keys: [s.watermarks], args: [String(lane), hexOrEmpty(expectedFloor, 'expectedFloor'), u64ToHex16(newFloor, 'newFloor')] };
}

export function gcFixDeadlineCall(s: ShardKeys, now: bigint, cutoffMs: bigint, d: Id128, deadline: bigint): ScriptCall {
  return {
    script: 'gcFixDeadline',
    keys: [s.watermarks, s.deadlines],
    args: [u64ToHex16(now, 'now'), u64ToHex16(cutoffMs, 'cutoff'), d, u64ToHex16(deadline, 'deadline'), msScore(deadline), s.prefix],
  };
}

export function gcScheduleChildrenCall(s: ShardKeys, now: bigint, d: Id128, deadline: bigint, graceMs: bigint): ScriptCall {
  return {
    script: 'gcScheduleChildren',
    keys: [s.dispatch(d)],
    args: [u64ToHex16(now, 'now'), d, u64ToHex16(deadline, 'deadline'), msScore(deadline), s.prefix, msScore(graceMs)],
  };
}

export function gcScheduleProgressCall(s: ShardKeys, now: bigint, d: Id128, deadline: bigint, graceMs: bigint): ScriptCall {
  return {
    script: 'gcScheduleProgress',
    keys: [s.dispatch(d), s.completed(d)],
    args: [u64ToHex16(now, 'now'), u64ToHex16(deadline, 'deadline'), msScore(deadline), msScore(graceMs)],
  };
}

export function gcSweepCall(s: ShardKeys, now: bigint, limit: number): ScriptCall {
  return { script: 'gcSweep', keys: [s.completedIndex, s.deadlines, s.sourceIndex], args: [msScore(now), u64ToHex16(now, 'now'), s.prefix, String(limit)] };
}

export function countDispatchFactsCall(s: ShardKeys, now: bigint, d: Id128): ScriptCall {
  return { script: 'countDispatchFacts', keys: [s.sourceIndex], args: [u64ToHex16(now, 'now'), d, s.prefix] };
}
