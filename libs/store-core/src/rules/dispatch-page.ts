import { createHash } from 'node:crypto';
import { encodeDispatchRecord } from '../codecs/dispatch-record';
import { CorruptEntryError, FrontierGapError, InvalidInputError } from '../errors/domain-errors';
import type { Id128 } from '../model/ids';
import type { DispatchOutcome, DispatchPage, DispatchPageRecord, DispatchRecord, MailboxEntryInput, ShardEpoch } from '../model/mailbox';
import { MAX_MAILBOX_OFFSET, composeMailboxSeq } from './mailbox-seq';

/** 32-byte SHA-256 of the record's canonical encoding: two sights with equal digests carry the same fan-out. */
export function dispatchDigest(record: DispatchRecord): Buffer {
  return createHash('sha256').update(encodeDispatchRecord(record)).digest();
}

/**
 * Absolute end (ms) of a dispatch id's duplicate-detection memory: `createdAt + dedupeMs`. Fixed by the
 * record itself, so every sight of one dispatch computes the same value and no write renews it.
 */
export function dispatchDedupeExpiry(createdAt: bigint, dedupeMs: bigint): bigint {
  return createdAt + dedupeMs;
}

/** A record of a page that is the first sight of its dispatch id inside the page. */
export interface PageCandidate extends DispatchPageRecord {
  readonly digest: Buffer;
}

/** A later sight of a dispatch id inside the same page. */
export interface InPageRepeat extends DispatchPageRecord {
  readonly digest: Buffer;
  /** Offset of the first sight in this page. */
  readonly firstOffset: bigint;
}

/** A page to apply: the first sight of each dispatch id in it, and its later sights. */
export interface ApplyPlan {
  readonly kind: 'apply';
  readonly candidates: readonly PageCandidate[];
  readonly repeats: readonly InPageRepeat[];
}

/** What to do with a page, before any storage is consulted beyond the frontier. */
export type PagePlan = { readonly kind: 'behind' } | ApplyPlan;

/**
 * Validates a page (shape, shard) and decides against the current frontier `F`:
 * - `fromOffset > F + 1` → `FrontierGapError` (never skip a hole);
 * - `toOffset ≤ F` → `behind` (already applied; write nothing);
 * - otherwise `apply`: the first sight of each dispatch id in the page is a candidate (its canonical
 *   offset still has to be checked against earlier pages); later sights in the page are repeats.
 * A null frontier accepts any start (the first page of an epoch).
 */
export function planPage(page: DispatchPage, shardEpoch: ShardEpoch, frontier: bigint | null): PagePlan {
  validatePage(page, shardEpoch);
  const decision = pageDecision(page, shardEpoch, frontier);
  if (decision === 'behind') return { kind: 'behind' };
  const first = new Map<Id128, PageCandidate>();
  const candidates: PageCandidate[] = [];
  const repeats: InPageRepeat[] = [];
  for (const r of page.records) {
    const digest = dispatchDigest(r.record);
    const seen = first.get(r.record.dispatchId);
    if (seen) {
      repeats.push({ ...r, digest, firstOffset: seen.offset });
    } else {
      const c = { ...r, digest };
      first.set(r.record.dispatchId, c);
      candidates.push(c);
    }
  }
  return { kind: 'apply', candidates, repeats };
}

/**
 * `planPage`'s decision of a page range against the frontier `F`, without the records: `gap`
 * (thrown as `FrontierGapError`, the same error `planPage` raises), `behind` or `apply`. For a store
 * that planned the page's records before it knew `F` (Redis reads `F` in the script that records
 * the page) and must decide on the `F` it learnt, without planning the page again.
 */
export function pageDecision(range: Pick<DispatchPage, 'fromOffset' | 'toOffset'>, shardEpoch: ShardEpoch, frontier: bigint | null): 'behind' | 'apply' {
  if (frontier !== null && range.fromOffset > frontier + 1n) {
    throw new FrontierGapError(
      `shard ${shardEpoch.shard} epoch ${shardEpoch.epoch}: page starts at offset ${range.fromOffset}, ` +
        `frontier is ${frontier} (offsets ${frontier + 1n}…${range.fromOffset - 1n} missing)`,
    );
  }
  return frontier !== null && range.toOffset <= frontier ? 'behind' : 'apply';
}

function validatePage(page: DispatchPage, shardEpoch: ShardEpoch): void {
  const { fromOffset, toOffset, records } = page;
  if (typeof fromOffset !== 'bigint' || typeof toOffset !== 'bigint' || fromOffset < 0n || toOffset < fromOffset) {
    throw new InvalidInputError(`dispatch page range must satisfy 0 ≤ fromOffset ≤ toOffset: ${String(fromOffset)}…${String(toOffset)}`);
  }
  if (toOffset > MAX_MAILBOX_OFFSET) {
    throw new InvalidInputError(`dispatch page offset ${toOffset} does not fit a mailbox seq (max ${MAX_MAILBOX_OFFSET}); start a new epoch`);
  }
  let prev = fromOffset - 1n;
  for (const r of records) {
    if (typeof r.offset !== 'bigint' || r.offset <= prev || r.offset > toOffset) {
      throw new InvalidInputError(`dispatch page records must be strictly ascending inside ${fromOffset}…${toOffset}: offset ${r.offset}`);
    }
    if (r.record.shard !== shardEpoch.shard) {
      throw new InvalidInputError(`dispatch ${r.record.dispatchId} at offset ${r.offset} is for shard ${r.record.shard}, store shard is ${shardEpoch.shard}`);
    }
    prev = r.offset;
  }
}

/** Same digest → same fan-out; used to tell a duplicate from a conflicting reuse of a dispatch id. */
export function sameDigest(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0;
}

/** The mailbox entries of one applied dispatch: every recipient's group at the canonical offset's seq. */
export function entriesOfDispatch(record: DispatchRecord, epoch: number, canonicalOffset: bigint): MailboxEntryInput[] {
  const mailboxSeq = composeMailboxSeq(epoch, canonicalOffset);
  return record.recipients.map((userId) => ({
    tenantId: record.tenantId,
    userId,
    mailboxSeq,
    createdAt: record.createdAt,
    events: record.events,
  }));
}

/**
 * A dispatch index row as the store read it (after writing the page's sights, or on CQL before —
 * ADR-0022 §4): the id's lowest offset and that record's digest.
 */
export interface IndexedDispatch {
  readonly offset: bigint;
  readonly digest: Uint8Array;
}

/** `resolvePage`'s answer: one outcome per record in offset order, and the candidates whose entries to write. */
export interface PageResolution {
  readonly outcomes: readonly DispatchOutcome[];
  readonly applied: readonly PageCandidate[];
}

/**
 * Decides every record of an `apply` plan from each candidate's dispatch index row
 * (`indexed.get(dispatchId)`; null or absent when no row is live, e.g. its dedupe memory
 * `createdAt + dedupeMs` has already passed). Redis and Memory read the row after writing the page's
 * sights; CQL reads it before and writes the sights with the entries, which sees every lower sight
 * the read-back would (every sight at or below a stored frontier was acknowledged before that
 * frontier; ADR-0022 §4):
 * - a candidate whose row names a lower offset is a `duplicate` of it (same digest) or a `conflict`
 *   (other digest); otherwise (its own offset, a higher one whose own memory outlived it, or no
 *   row) it is `applied` at its own offset;
 * - a row at the candidate's own offset with another digest is damage → `CorruptEntryError`
 *   (one offset carries one record);
 * - an in-page repeat is compared with its id's canonical sight: same digest → `duplicate`, else `conflict`.
 */
export function resolvePage(plan: ApplyPlan, indexed: ReadonlyMap<Id128, IndexedDispatch | null>): PageResolution {
  const canonical = new Map<Id128, IndexedDispatch>();
  const outcomes: DispatchOutcome[] = [];
  const applied: PageCandidate[] = [];
  for (const c of plan.candidates) {
    const row = indexed.get(c.record.dispatchId) ?? null;
    const id = c.record.dispatchId;
    if (row !== null && row.offset === c.offset && !sameDigest(row.digest, c.digest)) {
      throw new CorruptEntryError(`dispatch index of ${id} at offset ${c.offset} holds another record's digest`);
    }
    if (row !== null && row.offset < c.offset) {
      canonical.set(id, row);
      outcomes.push({ offset: c.offset, dispatchId: id, outcome: sameDigest(row.digest, c.digest) ? 'duplicate' : 'conflict', canonicalOffset: row.offset });
    } else {
      canonical.set(id, { offset: c.offset, digest: c.digest });
      outcomes.push({ offset: c.offset, dispatchId: id, outcome: 'applied', canonicalOffset: c.offset });
      applied.push(c);
    }
  }
  for (const r of plan.repeats) {
    const first = canonical.get(r.record.dispatchId)!;
    outcomes.push({
      offset: r.offset,
      dispatchId: r.record.dispatchId,
      outcome: sameDigest(first.digest, r.digest) ? 'duplicate' : 'conflict',
      canonicalOffset: first.offset,
    });
  }
  outcomes.sort((a, b) => (a.offset < b.offset ? -1 : a.offset > b.offset ? 1 : 0));
  return { outcomes, applied };
}
