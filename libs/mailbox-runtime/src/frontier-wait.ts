import type { BoardEvent, Frontier, FrontierBoard } from './frontier-board';
import { frontierAbove } from './frontier-board';

/** Why a wait ended: something to re-read, the time is up, the client left, or the service is closing. */
export type WaitEnd = 'advanced' | 'timeout' | 'aborted' | 'closed';

export interface FrontierWaitRequest {
  readonly shard: number;
  /** The frontier the caller has already read up to. */
  readonly scanned: Frontier;
  /** `userKeyOf(tenant, user)`: pages that gave this user nothing do not wake the caller. */
  readonly userKey: string;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/**
 * Waits until the board shows that the caller may have new entries beyond `scanned`: an advance of
 * the shard whose page gave this user an entry (or whose content is unknown), a frontier already
 * above `scanned` when the wait starts (owned, or as the shared poller last read it), or the shard changing owner. Advances that gave the user
 * nothing only move the caller's `scanned` along, without a re-read.
 */
export function waitForFrontier(board: FrontierBoard, req: FrontierWaitRequest): Promise<WaitEnd> {
  if (board.closed) return Promise.resolve('closed');
  if (req.signal?.aborted) return Promise.resolve('aborted');
  const latest = board.latest(req.shard);
  if (latest !== undefined && frontierAbove(latest, req.scanned)) return Promise.resolve('advanced');
  return new Promise((resolve) => {
    let seen = req.scanned;
    const finish = (end: WaitEnd): true => {
      clearTimeout(timer);
      unsubscribe();
      req.signal?.removeEventListener('abort', onAbort);
      resolve(end);
      return true;
    };
    const onAbort = (): void => void finish('aborted');
    const onEvent = (e: BoardEvent): boolean => {
      if (e.kind === 'closed') return finish('closed');
      if (e.kind === 'released') return finish('advanced');
      if (!frontierAbove(e.frontier, seen)) return false;
      if (e.prior === undefined || frontierAbove(e.prior, seen) || e.users === null || e.users.has(req.userKey)) return finish('advanced');
      seen = e.frontier;
      return false;
    };
    const unsubscribe = board.subscribe(req.shard, onEvent);
    const timer = setTimeout(() => finish('timeout'), Math.max(0, req.timeoutMs));
    req.signal?.addEventListener('abort', onAbort, { once: true });
  });
}
