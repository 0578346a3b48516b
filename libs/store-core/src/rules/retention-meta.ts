import type { LedgerItem } from '../codecs/active-ledger';
import { MAX_LEDGER_ITEMS } from '../codecs/codec-limits';
import { CorruptEntryError } from '../errors/domain-errors';
import { assertU64 } from '../model/u64';
import { consumeExpired, mergeGap, registerDay } from './retention-ledger';
import type { BucketProof } from './retention-ledger';
import { lowersExpiryTooSoon } from './retention-change';

/** The only retention meta format this code reads or writes; any other version fails closed. */
export const RETENTION_FORMAT_VERSION = 4;

/**
 * A user's V4 retention meta (one row / one value per `(tenant, user)`). Every change bumps
 * `generation`, so a conditional write comparing `(version, generation, inspectedThrough, gap,
 * ledger)` can never be fooled by an ABA between a concurrent append and an inspect.
 */
export interface RetentionMeta {
  readonly version: 4;
  /** Bumped by one on every change (u64). */
  readonly generation: bigint;
  /** Highest day whose ledger item has been consumed (by an append or an inspect); null = none. */
  readonly inspectedThrough: number | null;
  /** Expired gap boundary: a cursor below it is expired. null = no gap yet (stored as `NO_GAP`). Never raises trim. */
  readonly gap: bigint | null;
  /** Live day items, strictly ascending by day, at most `MAX_LEDGER_ITEMS`. */
  readonly ledger: readonly LedgerItem[];
}

/** The meta of a user that never had an entry (generation 0). */
export function emptyRetentionMeta(): RetentionMeta {
  return { version: RETENTION_FORMAT_VERSION, generation: 0n, inspectedThrough: null, gap: null, ledger: [] };
}

/**
 * Validates a meta read from storage: version 4 only (older or unknown → `CorruptEntryError`, never
 * guessed or rewritten), u64 generation and gap, u32 `inspectedThrough`, ledger strictly ascending
 * by day and at most 32 items. Returns it typed.
 */
export function checkRetentionMeta(m: { readonly version: number } & Omit<RetentionMeta, 'version'>): RetentionMeta {
  if (m.version !== RETENTION_FORMAT_VERSION) throw new CorruptEntryError(`retention meta version ${m.version} is not readable (only v4)`);
  try {
    assertU64(m.generation, 'generation');
    if (m.gap !== null) assertU64(m.gap, 'gap');
  } catch (e) {
    throw new CorruptEntryError('retention meta out of range', { cause: e });
  }
  const ip = m.inspectedThrough;
  if (ip !== null && (!Number.isInteger(ip) || ip < 0 || ip > 0xffff_ffff)) throw new CorruptEntryError(`inspectedThrough out of range: ${ip}`);
  if (m.ledger.length > MAX_LEDGER_ITEMS) throw new CorruptEntryError(`active ledger holds ${m.ledger.length} items`);
  m.ledger.forEach((item, i) => {
    if (i > 0 && item.day <= m.ledger[i - 1]!.day) throw new CorruptEntryError('active ledger days are not strictly ascending');
  });
  return m as RetentionMeta;
}

/** What one entry append contributes: its day bucket, seq and absolute expiry (`entryExpiry`). */
export interface AppendFact {
  readonly day: number;
  readonly seq: bigint;
  readonly expiresAt: bigint;
}

/** Result of `applyAppend`. */
export interface AppendOutcome {
  /** The meta to write (conditionally on the meta read). Same object as the input when unchanged. */
  readonly meta: RetentionMeta;
  /** True when the entry is already expired: write only its bucket proof, never the entry. */
  readonly expiredReplay: boolean;
  /** False when nothing changed (a replay of an already registered entry): no meta write needed. */
  readonly changed: boolean;
}

function consumeInto(base: RetentionMeta, expired: readonly LedgerItem[], seqOf: (i: LedgerItem) => bigint): Pick<RetentionMeta, 'gap' | 'inspectedThrough'> {
  let { gap, inspectedThrough } = base;
  for (const item of expired) {
    gap = mergeGap(gap, seqOf(item));
    inspectedThrough = inspectedThrough === null || item.day > inspectedThrough ? item.day : inspectedThrough;
  }
  return { gap, inspectedThrough };
}

function sameLedger(a: readonly LedgerItem[], b: readonly LedgerItem[]): boolean {
  return a.length === b.length && a.every((x, i) => x.day === b[i]!.day && x.maxSeq === b[i]!.maxSeq && x.expiresAt === b[i]!.expiresAt);
}

/** Field-by-field equality of two metas (the comparison a conditional meta write makes). */
export function retentionMetasEqual(a: RetentionMeta, b: RetentionMeta): boolean {
  return (
    a.version === b.version && a.generation === b.generation && a.inspectedThrough === b.inspectedThrough && a.gap === b.gap && sameLedger(a.ledger, b.ledger)
  );
}

/**
 * The meta after appending one entry at `nowMs` (the single meta write of `appendBatch`, made after
 * the entry's bucket proof and before the entry):
 * 1. consume every ledger item with `expiresAt ≤ now` into the gap (their ledger `maxSeq`: an entry
 *    is only written after its item was registered) and into `inspectedThrough`;
 * 2. the entry is an *expired replay* when `fact.expiresAt ≤ now`, when its day was already
 *    consumed (`day ≤ inspectedThrough`) and has no live item, or when it would bring its day's live
 *    item forward to expire within `EXPIRY_LOWERING_FLOOR_MS` (`lowersExpiryTooSoon`) — then its seq
 *    is merged into the gap and no item is registered (the seed's "append sees the inspected day and
 *    adds the gap");
 * 3. otherwise its day's item is registered or raised (`registerDay`; > 32 items → `InvariantViolationError`);
 * 4. any change bumps `generation` by one; no change returns the input meta and `changed: false`.
 */
export function applyAppend(meta: RetentionMeta | null, fact: AppendFact, nowMs: bigint): AppendOutcome {
  assertU64(fact.seq, 'entry seq');
  const base = meta ?? emptyRetentionMeta();
  const { ledger: live, expired } = consumeExpired(base.ledger, nowMs);
  const consumed = consumeInto(base, expired, (i) => i.maxSeq);
  const { inspectedThrough } = consumed;
  const dayConsumed = inspectedThrough !== null && fact.day <= inspectedThrough && !live.some((i) => i.day === fact.day);
  const expiredReplay = fact.expiresAt <= nowMs || dayConsumed || lowersExpiryTooSoon(live, fact, nowMs);
  const ledger = expiredReplay ? live : registerDay(live, { day: fact.day, maxSeq: fact.seq, expiresAt: fact.expiresAt });
  const gap = expiredReplay ? mergeGap(consumed.gap, fact.seq) : consumed.gap;
  const changed = meta === null || gap !== base.gap || inspectedThrough !== base.inspectedThrough || !sameLedger(ledger, base.ledger);
  if (!changed) return { meta: base, expiredReplay, changed };
  return { meta: { version: RETENTION_FORMAT_VERSION, generation: base.generation + 1n, inspectedThrough, gap, ledger }, expiredReplay, changed };
}

/** Days whose ledger items have expired at `nowMs`: the bucket proofs an inspect must read. */
export function expiredLedgerDays(meta: RetentionMeta, nowMs: bigint): number[] {
  return consumeExpired(meta.ledger, nowMs).expired.map((i) => i.day);
}

/**
 * The meta after a read-side inspect at `nowMs` (before `checkCursor`): every item with
 * `expiresAt ≤ now` must have its same-day bucket proof with `proof.maxSeq ≥ item.maxSeq` (missing
 * or lower → `CorruptEntryError`, nothing changes); the proof's real max seq is merged into the gap
 * (never into trim), the item is removed, `inspectedThrough` raised, `generation` bumped. Nothing
 * expired → the same meta object (no write).
 */
export function applyInspect(meta: RetentionMeta, nowMs: bigint, proofs: ReadonlyMap<number, BucketProof>): RetentionMeta {
  const { ledger, expired } = consumeExpired(meta.ledger, nowMs);
  if (expired.length === 0) return meta;
  for (const item of expired) {
    const proof = proofs.get(item.day);
    if (proof === undefined) throw new CorruptEntryError(`ledger day ${item.day} has no bucket proof`);
    if (proof.maxSeq < item.maxSeq) {
      throw new CorruptEntryError(`bucket proof of day ${item.day} (max ${proof.maxSeq}) is below its ledger item (max ${item.maxSeq})`);
    }
  }
  const { gap, inspectedThrough } = consumeInto(meta, expired, (i) => proofs.get(i.day)!.maxSeq);
  return { version: RETENTION_FORMAT_VERSION, generation: meta.generation + 1n, inspectedThrough, gap, ledger };
}

/**
 * The meta after appending one entry whose ledger must change (ADR-0022 §5), pure — the rule of
 * every backend whose appends of a registered day raise only the bucket proof (Memory, Scylla).
 * Unlike `applyAppend`, an expired ledger item is consumed at its **bucket proof's** max seq, not at the
 * item's: an append of an already registered day raises only the proof (by write
 * timestamp or max), so the item's max seq may be below the day's real highest seq, and consuming it would
 * put the gap boundary too low — a cursor could then skip an expired entry silently.
 *
 * 1. every item with `expiresAt ≤ now` whose proof covers it is consumed: its proof's max seq merges
 *    into the gap, `inspectedThrough` rises; an item whose proof is missing or below it is damage and
 *    is KEPT, so the reader's inspection still reports it (`CorruptEntryError`) while appends go on;
 * 2. the entry is an expired replay when `fact.expiresAt ≤ now`, when its day was consumed
 *    (`day ≤ inspectedThrough`, no live item), when its day is a kept damaged item or when it would
 *    bring its day's item forward to expire within `EXPIRY_LOWERING_FLOOR_MS` — then its seq merges
 *    into the gap and nothing is registered;
 * 3. otherwise its day is registered or raised (`registerDay`);
 * 4. any change bumps `generation` by one; no change returns the input meta and `changed: false`.
 */
export function appendWithProofs(meta: RetentionMeta | null, fact: AppendFact, nowMs: bigint, proofs: ReadonlyMap<number, BucketProof>): AppendOutcome {
  assertU64(fact.seq, 'entry seq');
  const base = meta ?? emptyRetentionMeta();
  const { ledger: live, expired } = consumeExpired(base.ledger, nowMs);
  let { gap, inspectedThrough } = base;
  const damaged: LedgerItem[] = [];
  for (const item of expired) {
    const proof = proofs.get(item.day);
    if (proof === undefined || proof.maxSeq < item.maxSeq) {
      damaged.push(item);
      continue;
    }
    gap = mergeGap(gap, proof.maxSeq);
    inspectedThrough = inspectedThrough === null || item.day > inspectedThrough ? item.day : inspectedThrough;
  }
  const kept = [...live, ...damaged].sort((a, b) => a.day - b.day);
  const dayConsumed = inspectedThrough !== null && fact.day <= inspectedThrough && !live.some((i) => i.day === fact.day);
  const expiredReplay = fact.expiresAt <= nowMs || dayConsumed || damaged.some((i) => i.day === fact.day) || lowersExpiryTooSoon(live, fact, nowMs);
  const ledger = expiredReplay ? kept : registerDay(kept, { day: fact.day, maxSeq: fact.seq, expiresAt: fact.expiresAt });
  if (expiredReplay) gap = mergeGap(gap, fact.seq);
  const next: RetentionMeta = { version: RETENTION_FORMAT_VERSION, generation: base.generation, inspectedThrough, gap, ledger };
  if (meta !== null && retentionMetasEqual(next, base)) return { meta: base, expiredReplay, changed: false };
  return { meta: { ...next, generation: base.generation + 1n }, expiredReplay, changed: true };
}

/**
 * The days of every expired ledger item: the bucket proofs `appendWithProofs` needs. A day's proof
 * is the highest of its rows in **every** epoch (issue 27): after a mailbox epoch bump a store of the
 * new epoch may add entries to a day the old epoch registered, raising only its own epoch's row and
 * leaving the item's max seq (and so its epoch) behind; reading one epoch would put the gap too low.
 */
export function proofsToRead(meta: RetentionMeta | null, nowMs: bigint): number[] {
  if (meta === null) return [];
  return consumeExpired(meta.ledger, nowMs).expired.map((i) => i.day);
}
