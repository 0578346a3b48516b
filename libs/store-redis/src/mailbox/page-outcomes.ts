import { InvariantViolationError, sameDigest } from '@qim/store-core';
import type { DispatchOutcome, Id128, PageCandidate, PagePlan } from '@qim/store-core';

/** A dispatch id's first sight as the dispatch index holds it after step 1 of `applyPage`. */
export interface CanonicalSight {
  readonly offset: bigint;
  readonly digest: Uint8Array;
}

/** Outcomes of every record of the page (offset order) and the candidates whose entries must be written. */
export interface PageOutcomes {
  readonly outcomes: readonly DispatchOutcome[];
  readonly applied: readonly PageCandidate[];
}

type ApplyPlan = Extract<PagePlan, { kind: 'apply' }>;

/**
 * Decides each record of a page from the canonical sights the dispatch index answered for its
 * candidates (same order), ADR-0022 §4: a candidate whose canonical sight is itself (same offset,
 * same digest) is `applied`; a lower canonical offset with the same digest makes it a `duplicate`,
 * any other digest a `conflict`. An in-page repeat is judged against its id's canonical sight the
 * same way. A canonical offset above the candidate's cannot come out of the index (lowest wins).
 */
export function pageOutcomes(plan: ApplyPlan, canonical: readonly CanonicalSight[]): PageOutcomes {
  if (canonical.length !== plan.candidates.length) throw new InvariantViolationError(`dispatch index answered ${canonical.length} sights for ${plan.candidates.length} candidates`);
  const byId = new Map<Id128, CanonicalSight>();
  const outcomes: DispatchOutcome[] = [];
  const applied: PageCandidate[] = [];
  plan.candidates.forEach((c, i) => {
    const sight = canonical[i]!;
    if (sight.offset > c.offset) throw new InvariantViolationError(`dispatch ${c.record.dispatchId}: canonical offset ${sight.offset} above its sight at ${c.offset}`);
    byId.set(c.record.dispatchId, sight);
    const same = sameDigest(sight.digest, c.digest);
    const outcome = sight.offset === c.offset && same ? 'applied' : same ? 'duplicate' : 'conflict';
    if (outcome === 'applied') applied.push(c);
    outcomes.push({ offset: c.offset, dispatchId: c.record.dispatchId, outcome, canonicalOffset: sight.offset });
  });
  for (const r of plan.repeats) {
    const sight = byId.get(r.record.dispatchId);
    if (sight === undefined) throw new InvariantViolationError(`in-page repeat of ${r.record.dispatchId} without a first sight`);
    outcomes.push({ offset: r.offset, dispatchId: r.record.dispatchId, outcome: sameDigest(sight.digest, r.digest) ? 'duplicate' : 'conflict', canonicalOffset: sight.offset });
  }
  outcomes.sort((a, b) => (a.offset < b.offset ? -1 : a.offset > b.offset ? 1 : 0));
  return { outcomes, applied };
}
