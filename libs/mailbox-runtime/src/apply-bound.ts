import type { BusLogger, ConsumedPage } from '@qim/bus';
import type { PageReport } from '@qim/store-core';
import { UnavailableError } from '@qim/store-core';

/** A page's apply that outlived the worker's bound (an `UnavailableError`: the page is retried). */
export class ApplyTimeoutError extends UnavailableError {}

/** Whether `p` settles within `ms` (its outcome is the caller's to read). */
async function endsWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const ended = await Promise.race([
    p.then(
      () => true,
      () => true,
    ),
    new Promise<false>((r) => (timer = setTimeout(() => r(false), ms))),
  ]);
  clearTimeout(timer);
  return ended;
}

/**
 * The shard worker's bound on one page's `applyPage` (issue 28, item 5). An apply still running after
 * `timeoutMs` fails the page with `ApplyTimeoutError` and an error log — a store that stopped
 * answering must not hold the partition while heartbeats keep it assigned — and is remembered until
 * it ends: meanwhile the next attempt of that shard waits for it at most `timeoutMs`, then is refused
 * (`UnavailableError`), so a shard never has two applies at once.
 */
export class ApplyBound {
  /** Per shard, an apply that outlived the bound and has not ended yet. */
  private readonly late = new Map<number, Promise<unknown>>();

  constructor(
    readonly timeoutMs: number,
    private readonly log: BusLogger,
  ) {}

  async run(shard: number, page: ConsumedPage, apply: () => Promise<PageReport>): Promise<PageReport> {
    const late = this.late.get(shard);
    if (late !== undefined && !(await endsWithin(late, this.timeoutMs))) {
      throw new UnavailableError(
        `shard ${shard}: an earlier apply that outlived its bound is still running; page ${page.fromOffset}…${page.toOffset} waits for it`,
      );
    }
    const running = apply();
    if (await endsWithin(running, this.timeoutMs)) return running;
    const settled = running.then(
      () => undefined,
      () => undefined,
    );
    this.late.set(shard, settled);
    void settled.then(() => {
      if (this.late.get(shard) === settled) this.late.delete(shard);
    });
    const message =
      `shard ${shard}: applyPage of offsets ${page.fromOffset}…${page.toOffset} did not end within ${this.timeoutMs} ms ` +
      `(the store does not answer); the page is retried`;
    this.log.error({ shard, fromOffset: page.fromOffset.toString(), applyTimeoutMs: this.timeoutMs }, message);
    throw new ApplyTimeoutError(message);
  }
}
