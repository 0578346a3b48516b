import { RETENTION_FORMAT_VERSION, assertU64, consumeExpired, emptyRetentionMeta, mergeGap, registerDay, retentionMetasEqual } from '@qim/store-core';
import type { AppendFact, AppendOutcome, BucketProof, LedgerItem, RetentionMeta } from '@qim/store-core';

/**
 * The meta after appending one entry on the slow path (ADR-0022 §5), pure. Unlike store-core's
 * `applyAppend`, an expired ledger item is consumed at its **bucket proof's** max seq, not at the
 * item's: on this backend an append of an already registered day raises only the proof (by write
 * timestamp), so the item's max seq may be below the day's real highest seq, and consuming it would
 * put the gap boundary too low — a cursor could then skip an expired entry silently.
 *
 * 1. every item with `expiresAt ≤ now` whose proof covers it is consumed: its proof's max seq merges
 *    into the gap, `inspectedThrough` rises; an item whose proof is missing or below it is damage and
 *    is KEPT, so the reader's inspection still reports it (`CorruptEntryError`) while appends go on;
 * 2. the entry is an expired replay when `fact.expiresAt ≤ now`, when its day was consumed
 *    (`day ≤ inspectedThrough`, no live item) or when its day is a kept damaged item — then its seq
 *    merges into the gap and nothing is registered;
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
  const expiredReplay = fact.expiresAt <= nowMs || dayConsumed || damaged.some((i) => i.day === fact.day);
  const ledger = expiredReplay ? kept : registerDay(kept, { day: fact.day, maxSeq: fact.seq, expiresAt: fact.expiresAt });
  if (expiredReplay) gap = mergeGap(gap, fact.seq);
  const next: RetentionMeta = { version: RETENTION_FORMAT_VERSION, generation: base.generation, inspectedThrough, gap, ledger };
  if (meta !== null && retentionMetasEqual(next, base)) return { meta: base, expiredReplay, changed: false };
  return { meta: { ...next, generation: base.generation + 1n }, expiredReplay, changed: true };
}

/** The `{day, epoch}` of every expired ledger item: the bucket proofs `appendWithProofs` needs. */
export function proofsToRead(meta: RetentionMeta | null, nowMs: bigint, epochOf: (seq: bigint) => number): { day: number; epoch: number }[] {
  if (meta === null) return [];
  return consumeExpired(meta.ledger, nowMs).expired.map((i) => ({ day: i.day, epoch: epochOf(i.maxSeq) }));
}
