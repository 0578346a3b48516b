import { InvalidInputError } from '../errors/domain-errors';

/** Result of `cutBatch`. */
export interface CutBatchResult<T> {
  /** A prefix of the input: whole entries only. */
  readonly taken: T[];
  /** True when entries were left behind because of the limit or the byte budget. */
  readonly cut: boolean;
}

/** What the page cut looks at: the entry's events, each with its payload. */
export interface PagedEntry {
  readonly events: readonly { readonly payload: Uint8Array }[];
}

/** Bytes an entry costs a page's byte budget: the sum of its event payloads (what a sync answer carries). */
export function entryPayloadBytes(e: PagedEntry): number {
  let n = 0;
  for (const ev of e.events) n += ev.payload.length;
  return n;
}

/** `limit` and `maxBytes` (when given) must be integers ≥ 1, else `InvalidInputError`. */
export function checkPageBudget(limit: number, maxBytes?: number): void {
  if (!Number.isInteger(limit) || limit < 1) throw new InvalidInputError(`limit must be an integer ≥ 1: ${limit}`);
  if (maxBytes !== undefined && (!Number.isInteger(maxBytes) || maxBytes < 1)) throw new InvalidInputError(`maxBytes must be an integer ≥ 1: ${maxBytes}`);
}

/**
 * The page cut, one entry at a time, for a reader that stops reading as soon as the page is full:
 * `offer` the entries in ascending seq until it answers false. Rules as `cutBatch`.
 */
export class PageCutter<T extends PagedEntry> {
  readonly taken: T[] = [];
  private events = 0;
  private bytes = 0;
  private full = false;

  /** `maxBytes` absent: no byte budget (the event limit alone cuts). */
  constructor(
    private readonly limit: number,
    private readonly maxBytes?: number,
  ) {
    checkPageBudget(limit, maxBytes);
  }

  /** Payload bytes of the entries taken so far (counted only under a byte budget; else 0). */
  get takenBytes(): number {
    return this.bytes;
  }

  /** True once an entry did not fit: the page is cut before it (offer nothing more). */
  get cut(): boolean {
    return this.full;
  }

  /** Takes `e` when it fits (the first entry always does); false: it does not, the page is cut before it. */
  offer(e: T): boolean {
    if (this.full) return false;
    const bytes = this.maxBytes === undefined ? 0 : entryPayloadBytes(e);
    if (this.taken.length > 0 && (this.events + e.events.length > this.limit || (this.maxBytes !== undefined && this.bytes + bytes > this.maxBytes))) {
      this.full = true;
      return false;
    }
    this.taken.push(e);
    this.events += e.events.length;
    this.bytes += bytes;
    return true;
  }
}

/**
 * Cuts a page of entries (ascending seq) on entry (seq) boundaries. `limit` (integer ≥ 1) counts
 * events; `maxBytes` (integer ≥ 1, optional) counts event payload bytes (`entryPayloadBytes`).
 * Entries are taken in order while the running event total stays ≤ `limit` and the running byte
 * total ≤ `maxBytes`, except that the first entry is always taken whole even when it alone exceeds
 * either (so a page always makes progress). An entry is never split and never skipped: the cut
 * stops at the first entry that does not fit.
 */
export function cutBatch<T extends PagedEntry>(entries: readonly T[], limit: number, maxBytes?: number): CutBatchResult<T> {
  const cutter = new PageCutter<T>(limit, maxBytes);
  for (const e of entries) if (!cutter.offer(e)) break;
  return { taken: cutter.taken, cut: cutter.cut };
}
