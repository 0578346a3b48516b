import { InvariantViolationError, resolvePage } from '@qim/store-core';
import type { Id128, IndexedDispatch, PagePlan, PageResolution } from '@qim/store-core';

/** A dispatch id's first sight as the dispatch index holds it after step 1 of `applyPage`. */
export type CanonicalSight = IndexedDispatch;

type ApplyPlan = Extract<PagePlan, { kind: 'apply' }>;

/**
 * Decides each record of a page from the canonical sights the record-dispatches script answered for
 * its candidates (same order). The decision is store-core's `resolvePage` (ADR-0022 §4), shared by
 * every backend; what is Redis's own is the check of the script's answer: one sight per candidate,
 * and never a canonical offset above the candidate's (the script keeps the lowest offset atomically).
 */
export function pageOutcomes(plan: ApplyPlan, canonical: readonly CanonicalSight[]): PageResolution {
  if (canonical.length !== plan.candidates.length)
    throw new InvariantViolationError(`dispatch index answered ${canonical.length} sights for ${plan.candidates.length} candidates`);
  const indexed = new Map<Id128, IndexedDispatch>();
  plan.candidates.forEach((c, i) => {
    const sight = canonical[i]!;
    if (sight.offset > c.offset)
      throw new InvariantViolationError(`dispatch ${c.record.dispatchId}: canonical offset ${sight.offset} above its sight at ${c.offset}`);
    indexed.set(c.record.dispatchId, sight);
  });
  return resolvePage(plan, indexed);
}
