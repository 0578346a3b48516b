import { InvalidInputError } from '../errors/domain-errors';

/** Result of `cutBatch`. */
export interface CutBatchResult<T> {
  /** A prefix of the input: whole entries only. */
  readonly taken: T[];
  /** True when entries were left behind because of the limit. */
  readonly cut: boolean;
}

/**
 * Cuts a page of entries (ascending seq) on entry (seq) boundaries. `limit` (integer ≥ 1) counts
 * events: entries are taken in order while the running event total stays ≤ `limit`, except that
 * the first entry is always taken whole even when it alone exceeds the limit (so a page always
 * makes progress). An entry is never split and never skipped: the cut stops at the first entry
 * that does not fit.
 */
export function cutBatch<T extends { readonly events: readonly unknown[] }>(entries: readonly T[], limit: number): CutBatchResult<T> {
  if (!Number.isInteger(limit) || limit < 1) throw new InvalidInputError(`limit must be an integer ≥ 1: ${limit}`);
  const taken: T[] = [];
  let events = 0;
  for (const e of entries) {
    if (taken.length > 0 && events + e.events.length > limit) break;
    taken.push(e);
    events += e.events.length;
  }
  return { taken, cut: taken.length < entries.length };
}
