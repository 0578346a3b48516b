import type { SyncPage } from '@qim/client';
import { setMaxListeners } from 'node:events';
import type { Endpoints } from './bench-client';
import { benchClient, errorCode } from './bench-client';
import { Tally, sleep } from './stats';
import type { Visibility } from './visibility';

export type SyncMode =
  { readonly kind: 'long-poll'; readonly waitMs: number } | { readonly kind: 'short-poll'; readonly intervalMs: number } | { readonly kind: 'stream' };

/**
 * One syncing device per user: `syncPage` of @qim/client (`GET /v1/mailboxes/:user/entries?after=&limit=&wait_ms=`)
 * in a loop (long poll), or without `wait_ms` every `intervalMs` (short poll), each request counted
 * and each failure counted by its code. Reports every synced message id to `Visibility`.
 */
export class DevicePool {
  private errors = new Tally();
  private requests = 0;
  private readonly stop = stopSignal();
  private readonly running: Promise<void>[] = [];
  private primed = 0;

  constructor(
    private readonly endpoints: Endpoints,
    private readonly tenant: string,
    private readonly mode: SyncMode,
    private readonly visibility: Visibility,
  ) {}

  /** Starts one device per user and resolves once each has had its first answer (its cursor is set). */
  async start(users: readonly string[], timeoutMs = 60_000): Promise<void> {
    for (const u of users) this.running.push(this.device(u));
    const deadline = performance.now() + timeoutMs;
    while (this.primed < users.length) {
      if (performance.now() > deadline) throw new Error(`only ${this.primed}/${users.length} devices got a first sync answer within ${timeoutMs} ms`);
      await sleep(50);
    }
  }

  /** Sync requests and errors by code since the last call. */
  takeCounts(): { requests: number; errors: Record<string, number> } {
    const out = { requests: this.requests, errors: this.errors.toJSON() };
    this.requests = 0;
    this.errors = new Tally();
    return out;
  }

  /** Ends every device (open long polls are aborted). */
  async close(): Promise<void> {
    this.stop.abort();
    await Promise.all(this.running);
  }

  /** Reports every message of a page as synced by `user`'s device now. */
  private seen(user: string, page: SyncPage): void {
    const now = performance.now();
    for (const e of page.entries) for (const ev of e.events) if (ev.message) this.visibility.seen(user, ev.message.messageId, now);
  }

  private async streamingDevice(user: string): Promise<void> {
    let after: bigint | null = null;
    let first = true;
    const device = benchClient(this.endpoints, 10_000, this.tenant).as(user);
    while (!this.stop.signal.aborted) {
      try {
        for await (const page of device.stream({ after, limit: 500, signal: this.stop.signal })) {
          this.requests++;
          if (first) {
            first = false;
            this.primed++;
          }
          this.seen(user, page);
          after = page.nextAfter;
        }
      } catch (err) {
        if (this.stop.signal.aborted) break;
        this.errors.add(errorCode(err));
        await sleep(200);
      }
    }
  }

  private async device(user: string): Promise<void> {
    if (this.mode.kind === 'stream') return this.streamingDevice(user);
    let after: bigint | null = null;
    let first = true;
    // 10 s per request beyond the long poll's own wait.
    const device = benchClient(this.endpoints, 10_000, this.tenant).as(user);
    while (!this.stop.signal.aborted) {
      const waitMs = this.mode.kind === 'long-poll' && !first ? this.mode.waitMs : undefined;
      let page: SyncPage | null = null;
      try {
        this.requests++;
        page = await device.syncPage({ after, limit: 500, waitMs, signal: this.stop.signal });
      } catch (err) {
        if (this.stop.signal.aborted) break;
        this.errors.add(errorCode(err));
      }
      if (first) {
        first = false;
        this.primed++;
      }
      if (!page) {
        await sleep(200);
        continue;
      }
      this.seen(user, page);
      after = page.nextAfter;
      if (this.mode.kind === 'short-poll' && !page.hasMore) await sleep(this.mode.intervalMs);
    }
  }
}

/** One abort signal shared by every device's request (one listener per open request). */
function stopSignal(): AbortController {
  const c = new AbortController();
  setMaxListeners(0, c.signal);
  return c;
}
