import { InvariantViolationError } from '@qim/store-core';
import type { Id128 } from '@qim/store-core';
import type { MailboxBucketKeys, ShardFrontierKeys, UserKeys } from '../keys/redis-keys';
import { msScore, u64ToHex16 } from '../redis/hex64';
import type { ScriptArg, ScriptCall } from '../redis/redis-io';

/**
 * Pure argument builders of the MailboxStore scripts (KEYS/ARGV exactly as each `.lua` docblock
 * documents). No I/O; unit-tested in `mailbox-script-args.spec.ts`.
 */

/** One entry of `append-entries-v5-1.lua` (a `PreparedEntry` fits). */
export interface AppendEntryArg {
  /** seq (16 hex) .. expiry (16 hex). */
  readonly head: string;
  /** physical expiry ms .. ':' .. day. */
  readonly tail: string;
  /** `entryHeader(head, tail, true)`, built once per dispatch (its recipients share it). */
  readonly liveHeader: string;
  /** The day-index member: seq (16 hex) + MailboxEntry bytes. */
  readonly member: Buffer;
}

/** A proof day no ledger item refers to any more, with the expiry its physical clean-up starts from. */
export interface ReleasedDay {
  readonly day: number;
  readonly expiresAt: bigint;
}

/** What the compare-and-set mode adds: the meta planned from, the new meta and the proof days to keep / release. */
export interface AppendCas {
  /** The five raw meta values planned from (or `NO_META`). */
  readonly expected: readonly ScriptArg[];
  /** The five new meta values, or null when the meta does not change. */
  readonly next: readonly ScriptArg[] | null;
  readonly liveDays: readonly number[];
  readonly released: readonly ReleasedDay[];
  readonly graceMs: bigint;
}

/** One user's part of an append call. */
export interface UserAppendArgs {
  readonly entries: readonly AppendEntryArg[];
  /**
   * Per entry (same index): false for an expired replay, whose bucket proof alone is written
   * (compare-and-set mode only). Null: every entry is live.
   */
  readonly live: readonly boolean[] | null;
  /** Null: fast path only (mode 'f'); else the compare-and-set (mode 'c'). */
  readonly cas: AppendCas | null;
}

const NO_NEXT: readonly string[] = ['', '', '', '', ''];

const releasedList = (r: readonly ReleasedDay[]): string => r.map((d) => `${d.day}:${msScore(d.expiresAt)}`).join(',');

let lastNow: { readonly ms: bigint; readonly hex: string } = { ms: 0n, hex: '0000000000000000' };

let lastHorizon: { readonly ms: bigint; readonly hex: string } = { ms: 0n, hex: '0000000000000000' };

/** `now` as 16 hex, remembered: every call of one page attempt shares it. */
function nowHex(ms: bigint): string {
  if (ms !== lastNow.ms) lastNow = { ms, hex: u64ToHex16(ms, 'now') };
  return lastNow.hex;
}

function horizonHex(ms: bigint): string {
  if (ms !== lastHorizon.ms) lastHorizon = { ms, hex: u64ToHex16(ms, 'horizon') };
  return lastHorizon.hex;
}

/**
 * The times of one append attempt: the caller's `now`, and the fast path's `horizon` (now + the
 * clock-skew allowance + the safety margin, `fastPathHorizon`): the script's fast path needs every
 * entry and its day's ledger item to live past it.
 */
export interface AppendTime {
  readonly now: bigint;
  readonly horizon: bigint;
}

/** The script's entry header: head, the live flag (`0`: an expired replay, only its bucket proof is written), tail. */
export function entryHeader(head: string, tail: string, live: boolean): string {
  return `${head}${live ? '1' : '0'}${tail}`;
}

/**
 * One user's arguments of `append-entries-v5-1.lua`: its id inside the bucket (tenant + user), the
 * mode, the entries (header + member) and, in compare-and-set mode, guard, new meta, days and grace.
 */
export function userAppendArgs(u: UserKeys, a: UserAppendArgs): ScriptArg[] {
  const args: ScriptArg[] = [u.id, a.cas === null ? 'f' : 'c', String(a.entries.length)];
  a.entries.forEach((e, i) => args.push(a.live === null || a.live[i] === true ? e.liveHeader : entryHeader(e.head, e.tail, false), e.member));
  if (a.cas !== null) {
    const c = a.cas;
    args.push(...c.expected, ...(c.next ?? NO_NEXT), c.liveDays.join(','), releasedList(c.released), msScore(c.graceMs));
  }
  return args;
}

/**
 * How an append call writes an entry into its day index: `add` (applyPage: the dispatch index
 * proves one record per seq, so other bytes under a written seq are damage, refused by the reader)
 * or `replace` (appendBatch: the contract's replay overwrites the whole group, so the seq's other
 * members are removed first, one more command per entry).
 */
export type EntryWrite = 'add' | 'replace';

/**
 * One append call on a mailbox bucket carrying several users' arguments (`userAppendArgs` of users
 * of that bucket, in reply order). The script derives the bucket prefix from the bucket key.
 */
export function appendEntriesCall(
  b: MailboxBucketKeys,
  at: AppendTime,
  epoch: number,
  write: EntryWrite,
  users: readonly (readonly ScriptArg[])[],
): ScriptCall {
  const args: ScriptArg[] = [nowHex(at.now), horizonHex(at.horizon), String(epoch), write, String(users.length)];
  for (const u of users) for (const a of u) args.push(a);
  return { script: 'appendEntriesV5', keys: [b.key], args };
}

/**
 * The inspect's compare-and-set: the meta as read and the new meta, the consumed days, and each
 * consumed day's bucket proof as read (`proofText` of its `ZRANGE … WITHSCORES` reply, same order
 * as `released`): the script compares both with what is stored before it writes.
 */
export function inspectRetentionCall(
  u: UserKeys,
  graceMs: bigint,
  expected: readonly ScriptArg[],
  next: readonly ScriptArg[],
  released: readonly ReleasedDay[],
  proofsRead: readonly string[],
): ScriptCall {
  if (proofsRead.length !== released.length)
    throw new InvariantViolationError(`inspect: ${proofsRead.length} proofs read for ${released.length} consumed days`);
  return { script: 'inspectRetentionV2', keys: [u.meta], args: [u.prefix, msScore(graceMs), ...expected, ...next, releasedList(released), ...proofsRead] };
}

/** A `ZRANGE proof:<day> 0 -1 WITHSCORES` reply as the inspect script rebuilds it: members and scores joined by single spaces. */
export function proofText(withScores: unknown): string {
  return (withScores as readonly Buffer[]).map((b) => b.toString('latin1')).join(' ');
}

/** `range-scan-v3-2.lua`: at most `max` seqs and, when `maxBytes` is given, that many payload bytes after the first. */
export function rangeScanCall(u: UserKeys, now: bigint, after: bigint, upTo: bigint, max: number, epoch: number, maxBytes?: number): ScriptCall {
  return {
    script: 'rangeScanV3',
    keys: [u.meta, u.trim],
    args: [
      u64ToHex16(now, 'now'),
      u64ToHex16(after, 'after'),
      u64ToHex16(upTo, 'upTo'),
      String(max),
      String(epoch),
      u.prefix,
      maxBytes === undefined ? '' : String(maxBytes),
    ],
  };
}

export function truncateBeforeCall(u: UserKeys, seq: bigint): ScriptCall {
  return { script: 'truncateBeforeV1', keys: [u.trim], args: [u64ToHex16(seq, 'trim')] };
}

/** A first sight of a dispatch id in a page, as `record-dispatches-v4-1.lua` records it. */
export interface DispatchCandidateArg {
  readonly dispatchId: Id128;
  readonly offset: bigint;
  readonly digest: Buffer;
  /** Absolute end of the id's duplicate memory: `dispatchDedupeExpiry(createdAt, dispatchDedupeMs)`. */
  readonly dedupeExpiresAt: bigint;
}

export interface RecordDispatchesArgs {
  readonly now: bigint;
  readonly graceMs: bigint;
  readonly fromOffset: bigint;
  readonly toOffset: bigint;
  readonly candidates: readonly DispatchCandidateArg[];
}

export function recordDispatchesCall(s: ShardFrontierKeys, epoch: number, a: RecordDispatchesArgs): ScriptCall {
  const args: ScriptArg[] = [
    u64ToHex16(a.now, 'now'),
    s.prefix,
    msScore(a.graceMs),
    String(epoch),
    u64ToHex16(a.fromOffset, 'fromOffset'),
    u64ToHex16(a.toOffset, 'toOffset'),
    String(a.candidates.length),
  ];
  for (const c of a.candidates) {
    args.push(c.dispatchId, u64ToHex16(c.offset, 'offset'), c.digest, u64ToHex16(c.dedupeExpiresAt, 'dedupe expiry'), msScore(c.dedupeExpiresAt));
  }
  return { script: 'recordDispatchesV4', keys: [s.frontier], args };
}

/** What step 3 of a page checks before it raises the frontier: what step 1 saw. */
export interface AdvanceFrontierArgs {
  /** The page's toOffset: the new frontier. */
  readonly offset: bigint;
  readonly fromOffset: bigint;
  /** The frontier step 1 read (null: none). */
  readonly expected: bigint | null;
  /** The server run id step 1 answered. */
  readonly runId: string;
}

export function advanceFrontierCall(s: ShardFrontierKeys, a: AdvanceFrontierArgs): ScriptCall {
  return {
    script: 'advanceFrontierV2',
    keys: [s.frontier],
    args: [
      u64ToHex16(a.offset, 'frontier'),
      u64ToHex16(a.fromOffset, 'fromOffset'),
      a.expected === null ? '' : u64ToHex16(a.expected, 'expected frontier'),
      a.runId,
    ],
  };
}
