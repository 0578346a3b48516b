import { StoreError } from '../errors/domain-errors';
import type { RangeScanOutcome, RangeScanPage, RangeScanRead } from '../model/mailbox';

/**
 * `rangeScanMany` out of a store's own `rangeScan`: every read started at once (concurrent
 * statements on a networked store), each answered on its own — a `StoreError` becomes that read's
 * outcome, anything else (a bug) rejects the call.
 */
export function rangeScanEach(reads: readonly RangeScanRead[], scan: (read: RangeScanRead) => Promise<RangeScanPage>): Promise<RangeScanOutcome[]> {
  return Promise.all(reads.map((read) => settleRangeScan(() => scan(read))));
}

/** One read's outcome: its page, or the `StoreError` it threw; any other error is rethrown. */
export async function settleRangeScan(scan: () => Promise<RangeScanPage>): Promise<RangeScanOutcome> {
  try {
    return { ok: true, page: await scan() };
  } catch (error) {
    if (error instanceof StoreError) return { ok: false, error };
    throw error;
  }
}
