import {
  CorruptEntryError,
  InvalidInputError,
  appendWithProofs,
  applyInspect,
  assertSeqInEpoch,
  assertU64,
  canonicalizeEvents,
  checkCursor,
  PageCutter,
  dayOf,
  decodeMailboxEntry,
  encodeMailboxEntry,
  entryExpiry,
  expiredLedgerDays,
  isId128,
  mergeBucketProof,
  proofsToRead,
} from '@qim/store-core';
import type { AppendReport, BucketProof, Id128, MailboxEntry, MailboxEntryInput, RangeScanPage, RetentionMeta } from '@qim/store-core';
import { decodeStored } from '../storage/decode-stored';
import { proofClustering, userKey } from './memory-mailbox-backend';
import { readDayProof, readRetentionMeta, releaseDayProofs, writeRetentionMeta } from './mailbox-scope';
import type { MailboxScope } from './mailbox-scope';

/** One validated, encoded entry ready to write. */
export interface PreparedEntry {
  readonly entry: MailboxEntry;
  readonly bytes: Buffer;
  readonly day: number;
}

/** Validates and encodes one input (nothing is written before every input of a batch passed). */
function prepare(s: MailboxScope, input: MailboxEntryInput): PreparedEntry {
  if (!isId128(input.tenantId) || !isId128(input.userId)) throw new InvalidInputError('entry ids must be canonical');
  const { offset } = assertSeqInEpoch(input.mailboxSeq, s.shardEpoch.epoch);
  if (offset === null) throw new InvalidInputError('an entry cannot sit at the start-of-epoch seq');
  if (typeof input.createdAt !== 'bigint' || input.createdAt < 0n) throw new InvalidInputError('createdAt must be a u64');
  assertU64(input.createdAt, 'createdAt');
  const events = canonicalizeEvents(input.events);
  const entry: MailboxEntry = { ...input, events, expiresAt: entryExpiry(input.createdAt, s.gc.entryRetentionMs) };
  return { entry, bytes: encodeMailboxEntry(entry), day: dayOf(input.createdAt) };
}

/** Validates and encodes a batch: every group valid, at most one group per `(user, seq)`; else `InvalidInputError`. */
export function prepareEntries(s: MailboxScope, inputs: readonly MailboxEntryInput[]): PreparedEntry[] {
  const prepared = inputs.map((i) => prepare(s, i));
  const seen = new Set<string>();
  for (const p of prepared) {
    const k = `${userKey(p.entry.tenantId, p.entry.userId)}:${p.entry.mailboxSeq}`;
    if (seen.has(k)) throw new InvalidInputError(`two groups for one (user, seq) in a batch: ${k}`);
    seen.add(k);
  }
  return prepared;
}

/**
 * True when the user's ledger need not change for this entry (ADR-0022 §5): the entry is live and
 * its day's ledger item is live and expires no later than it — then the append only raises the
 * day's bucket proof (which carries the day's highest seq) and writes the entry, as on Redis and Scylla.
 */
function ledgerCovers(meta: RetentionMeta | null, day: number, expiresAt: bigint, now: bigint): boolean {
  if (meta === null || expiresAt <= now) return false;
  const item = meta.ledger.find((i) => i.day === day);
  return item !== undefined && item.expiresAt > now && item.expiresAt <= expiresAt;
}

/** The bucket proofs of the meta's expired ledger days: each day's highest proof of every epoch (as the read side). */
function expiredDayProofs(s: MailboxScope, entry: MailboxEntry, meta: RetentionMeta | null, now: bigint): Map<number, BucketProof> {
  const proofs = new Map<number, BucketProof>();
  for (const day of proofsToRead(meta, now)) {
    const proof = readDayProof(s, entry.tenantId, entry.userId, day, now);
    if (proof !== null) proofs.set(day, proof);
  }
  return proofs;
}

/** True when `day` was consumed already (ADR-0022 §6: a proof written for it is released from its first write). */
function dayConsumed(meta: RetentionMeta | null, day: number): boolean {
  return meta !== null && meta.inspectedThrough !== null && day <= meta.inspectedThrough && !meta.ledger.some((i) => i.day === day);
}

/** The days no ledger item refers to after a meta change: the consumed ones, and the entry's own day when not in the ledger. */
function releasableDays(before: RetentionMeta | null, after: RetentionMeta, day: number): Set<number> {
  const live = new Set(after.ledger.map((i) => i.day));
  const out = new Set((before?.ledger ?? []).map((i) => i.day).filter((d) => !live.has(d)));
  if (!live.has(day)) out.add(day);
  return out;
}

/**
 * Writes one prepared entry (ADR-0022 §5, the same decisions as Redis and Scylla): bucket proof (max
 * seq only rises) → the meta only when the ledger must change (`appendWithProofs`: the first entry
 * of a day, an expired day consumed at its PROOF's max seq, an expired entry merged into the gap) →
 * the entry with its fixed absolute expiry, unless it is an expired replay (proof and gap only).
 * Runs without interleaving, as one entry's steps do on every backend.
 */
export function writeEntry(s: MailboxScope, { entry, bytes, day }: PreparedEntry): 'written' | 'expired' {
  const now = s.clock.nowMs();
  const uk = userKey(entry.tenantId, entry.userId);
  const ck = proofClustering(day, s.shardEpoch.epoch);
  const prevProof = s.backend.proofs.get(uk, ck, now);
  const meta = readRetentionMeta(s, entry.tenantId, entry.userId, now);
  const proofExpiry = dayConsumed(meta, day) ? now + s.releasedProofTtlMs : null;
  s.backend.proofs.put(uk, ck, mergeBucketProof(prevProof, day, entry.mailboxSeq, entry.expiresAt), proofExpiry);

  if (!ledgerCovers(meta, day, entry.expiresAt, now)) {
    const outcome = appendWithProofs(meta, { day, seq: entry.mailboxSeq, expiresAt: entry.expiresAt }, now, expiredDayProofs(s, entry, meta, now));
    if (outcome.changed) writeRetentionMeta(s, entry.tenantId, entry.userId, meta?.generation ?? null, outcome.meta, now);
    releaseDayProofs(s, entry.tenantId, entry.userId, releasableDays(meta, outcome.meta, day), now);
    if (outcome.expiredReplay) return 'expired';
  }
  s.backend.entries.put(uk, entry.mailboxSeq, bytes, entry.expiresAt);
  return 'written';
}

/** `appendBatch`: validate and encode every group first (a bad one → nothing written), then write each. */
export function appendEntries(s: MailboxScope, inputs: readonly MailboxEntryInput[]): AppendReport {
  let written = 0;
  let expired = 0;
  for (const p of prepareEntries(s, inputs)) {
    if (writeEntry(s, p) === 'written') written++;
    else expired++;
  }
  return { written, expired };
}

function decodeEntryAt(uk: string, seq: bigint, bytes: Buffer, tenantId: Id128, userId: Id128): MailboxEntry {
  const e = decodeStored('mailbox entry', () => decodeMailboxEntry(bytes));
  if (e.tenantId !== tenantId || e.userId !== userId || e.mailboxSeq !== seq) throw new CorruptEntryError(`entry at ${uk}/${seq} carries other coordinates`);
  return e;
}

/**
 * `rangeScan`: epoch check of both ends; `after > upTo` → `([], after)`; no meta → trim check then
 * `([], upTo)`; else lazily inspect expired ledger days (each needs its bucket proof), write the
 * meta, check the cursor against `max(trim, gap)`, and cut the live entries of `(after, upTo]`
 * (`limit` events, `maxBytes` payload bytes), decoding no entry past the one that ends the page.
 */
export function scanEntries(s: MailboxScope, tenantId: Id128, userId: Id128, after: bigint, upTo: bigint, limit: number, maxBytes?: number): RangeScanPage {
  if (!isId128(tenantId) || !isId128(userId)) throw new InvalidInputError('rangeScan: ids must be canonical');
  assertSeqInEpoch(after, s.shardEpoch.epoch);
  assertSeqInEpoch(upTo, s.shardEpoch.epoch);
  if (!Number.isInteger(limit) || limit < 1) throw new InvalidInputError(`rangeScan: limit must be an integer ≥ 1: ${limit}`);
  const cutter = new PageCutter<MailboxEntry>(limit, maxBytes);
  if (after > upTo) return { entries: [], next: after, hasMore: false };

  const now = s.clock.nowMs();
  const uk = userKey(tenantId, userId);
  const trim = s.backend.trims.get(uk, now);
  const meta = readRetentionMeta(s, tenantId, userId, now);
  if (meta === null) {
    checkCursor(after, trim, null);
    return { entries: [], next: upTo, hasMore: false };
  }
  const days = expiredLedgerDays(meta, now);
  let current = meta;
  if (days.length > 0) {
    const proofs = new Map<number, BucketProof>();
    for (const day of days) {
      const proof = readDayProof(s, tenantId, userId, day, now);
      if (proof !== null) proofs.set(day, proof);
    }
    current = applyInspect(meta, now, proofs);
    writeRetentionMeta(s, tenantId, userId, meta.generation, current, now);
    releaseDayProofs(s, tenantId, userId, days, now);
  }
  checkCursor(after, trim, current.gap);

  // Decoded one at a time: nothing past the entry that ends the page is read.
  for (const [seq, bytes] of s.backend.entries.scan(uk, now)) {
    if (seq <= after || seq > upTo) continue;
    if (!cutter.offer(decodeEntryAt(uk, seq, bytes, tenantId, userId))) break;
  }
  const taken = cutter.taken;
  if (cutter.cut) return { entries: taken, next: taken[taken.length - 1]!.mailboxSeq, hasMore: true };
  return { entries: taken, next: upTo, hasMore: false };
}

/** `truncateBefore`: monotonic raise of the user's trim (epoch-checked). */
export function raiseTrim(s: MailboxScope, tenantId: Id128, userId: Id128, seq: bigint): void {
  if (!isId128(tenantId) || !isId128(userId)) throw new InvalidInputError('truncateBefore: ids must be canonical');
  assertSeqInEpoch(seq, s.shardEpoch.epoch);
  const uk = userKey(tenantId, userId);
  const now = s.clock.nowMs();
  const trim = s.backend.trims.get(uk, now);
  if (trim === null || seq > trim) s.backend.trims.put(uk, seq, null);
}
