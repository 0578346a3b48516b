import { CorruptEntryError, InvariantViolationError, sameDigest } from '@qim/store-core';
import type { DispatchOutcome, Id128, InPageRepeat } from '@qim/store-core';
import type { CanonicalSight, Sight } from './dispatch-index';

/** Whole-second TTL granularity: an index row may vanish up to this long before its expiry (plus skew). */
const TTL_GRANULARITY_MS = 1_000n;

/** What one candidate of a page does once the dispatch index has answered. */
export interface SightOutcome {
  readonly outcome: DispatchOutcome;
  /** The record of the dispatch id's canonical offset (its digest decides the page's repeats). */
  readonly canonical: CanonicalSight;
}

/**
 * Decides one candidate (ADR-0022 §4), pure. `row` is what the index holds for its dispatch id after
 * the candidate's own write. The row naming the candidate's own offset → `applied`; a lower canonical
 * offset with the same digest → `duplicate`, with another digest → `conflict`. A candidate whose
 * window is over (`ttl ≤ 0`) has no memory and is applied at its own offset. The row just written
 * missing from the read-back is only possible when its window ended in between (within the TTL
 * granularity plus `skewMs` of `nowMs`); otherwise, like another digest at the candidate's own
 * offset, it is damage (`CorruptEntryError`).
 */
export function resolveSight({ candidate: c, dedupeExpiry, ttl }: Sight, row: CanonicalSight | undefined, nowMs: bigint, skewMs: bigint): SightOutcome {
  const dispatchId = c.record.dispatchId;
  const seen = ttl > 0 ? row : undefined;
  let canonical: CanonicalSight = { offset: c.offset, digest: c.digest };
  if (seen !== undefined && seen.offset < c.offset) {
    canonical = seen;
  } else if (seen !== undefined && seen.offset === c.offset) {
    if (!sameDigest(seen.digest, c.digest)) throw new CorruptEntryError(`dispatch index holds another record for ${dispatchId} at offset ${c.offset}`);
  } else if (ttl > 0 && nowMs + skewMs + TTL_GRANULARITY_MS < dedupeExpiry) {
    throw new CorruptEntryError(`dispatch index lost the sight of ${dispatchId} at offset ${c.offset} it was just given (window ends at ${dedupeExpiry})`);
  }
  const outcome = canonical.offset === c.offset ? 'applied' : sameDigest(canonical.digest, c.digest) ? 'duplicate' : 'conflict';
  return { outcome: { offset: c.offset, dispatchId, outcome, canonicalOffset: canonical.offset }, canonical };
}

/** In-page repeats follow their first sight's canonical record: same digest → `duplicate`, else `conflict`. */
export function resolveRepeats(repeats: readonly InPageRepeat[], canonicalOf: ReadonlyMap<Id128, CanonicalSight>): DispatchOutcome[] {
  return repeats.map((r) => {
    const canonical = canonicalOf.get(r.record.dispatchId);
    if (canonical === undefined) throw new InvariantViolationError(`in-page repeat of ${r.record.dispatchId} at offset ${r.offset} has no first sight`);
    return { offset: r.offset, dispatchId: r.record.dispatchId, outcome: sameDigest(canonical.digest, r.digest) ? 'duplicate' : 'conflict', canonicalOffset: canonical.offset };
  });
}

/** Outcomes ascending by offset. */
export function byOffset(outcomes: readonly DispatchOutcome[]): DispatchOutcome[] {
  return [...outcomes].sort((a, b) => (a.offset < b.offset ? -1 : a.offset > b.offset ? 1 : 0));
}
