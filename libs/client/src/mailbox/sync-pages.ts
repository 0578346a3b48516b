import { QimInvalidInputError, QimResyncRequiredError } from '../errors/qim-error';
import type { ActingIdentity } from '../http/acting-headers';
import type { HttpTransport } from '../http/http-transport';
import { sleep } from '../http/retry-policy';
import type { SyncOptions, SyncPage } from '../model/mailbox-model';
import { requireInt } from '../wire/ids';
import { syncPage } from './sync-page';

export const DEFAULT_WAIT_MS = 20_000;
export const DEFAULT_POLL_INTERVAL_MS = 1_000;

/**
 * What a 400 naming `wait_ms` says about long polling: the service's bound when it gave one above 0
 * (`… <=30000`), else 0 (an unknown parameter, or long polling turned off). Null: not about `wait_ms`.
 */
function waitBound(err: unknown): number | null {
  if (!(err instanceof QimInvalidInputError) || !/wait_ms/.test(err.message)) return null;
  const bound = /<=\s*(\d+)/.exec(err.message);
  return bound === null ? 0 : Number(bound[1]);
}

/** Resolves after `ms` or at abort (never rejects). */
const pause = (ms: number, signal?: AbortSignal) => sleep(ms, signal).catch(() => undefined);

/**
 * The acting user's mailbox as an async iterator of pages, from `opts.after` (default: the start).
 *
 * - Catch-up: pages are read back to back while `has_more`; without `follow` the iteration ends
 *   once caught up.
 * - Follow: once caught up each request carries `wait_ms` (long poll: the service answers as soon as
 *   entries arrive, or an empty page at the end of the wait). A wait above the service's bound is
 *   lowered to the bound it names; a service that does not know `wait_ms` (or allows none) is polled
 *   every `pollIntervalMs` instead, and so is one that answers a wait at once.
 * - A page is yielded when it has entries or moves the cursor; its `nextAfter` is the cursor to persist.
 * - 410 (`CURSOR_EXPIRED`, `EPOCH_MISMATCH`): `onResync` is awaited, then sync restarts from the
 *   start. Without `onResync`, or when the start itself is refused, the `QimResyncRequiredError` is thrown.
 * - Aborting `opts.signal` ends the iteration without an error.
 */
export async function* syncPages(http: HttpTransport, who: ActingIdentity, opts: SyncOptions = {}): AsyncGenerator<SyncPage, void, undefined> {
  const follow = opts.follow ?? false;
  let waitMs = requireInt('waitMs', opts.waitMs ?? DEFAULT_WAIT_MS, 0, 3_600_000);
  const pollIntervalMs = requireInt('pollIntervalMs', opts.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS, 0, 3_600_000);
  const signal = opts.signal;
  let after: bigint | null = opts.after ?? null;
  let longPoll = waitMs > 0;
  let caughtUp = false;
  let restarted = false;
  while (!signal?.aborted) {
    const wait = follow && caughtUp && longPoll ? waitMs : undefined;
    const started = Date.now();
    let page: SyncPage;
    try {
      page = await syncPage(http, who, { after, limit: opts.limit, maxBytes: opts.maxBytes, waitMs: wait, signal });
    } catch (err) {
      if (signal?.aborted) return;
      if (err instanceof QimResyncRequiredError && opts.onResync !== undefined && !(restarted && after === null)) {
        await opts.onResync({ error: err, cursor: after });
        after = null;
        caughtUp = false;
        restarted = true;
        continue;
      }
      const bound = wait === undefined ? null : waitBound(err);
      if (bound !== null && bound < waitMs) {
        waitMs = bound;
        longPoll = bound > 0;
        continue;
      }
      throw err;
    }
    restarted = false;
    if (page.entries.length > 0 || page.nextAfter !== after) yield page;
    after = page.nextAfter;
    caughtUp = !page.hasMore;
    if (!caughtUp) continue;
    if (!follow) return;
    const elapsed = Date.now() - started;
    if (page.entries.length === 0 && (wait !== undefined || !longPoll) && elapsed < pollIntervalMs) await pause(pollIntervalMs - elapsed, signal);
  }
}
