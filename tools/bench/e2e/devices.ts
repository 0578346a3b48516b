import { setMaxListeners } from 'node:events';
import type { HttpClient } from './http-client';
import { errorCode } from './http-client';
import { Tally, sleep } from './stats';
import type { Visibility } from './visibility';

export type SyncMode = { readonly kind: 'long-poll'; readonly waitMs: number } | { readonly kind: 'short-poll'; readonly intervalMs: number };

interface SyncPage {
  entries: { events: { message: { message_id: string } | null }[] }[];
  next_after: string;
  has_more: boolean;
}

/**
 * One syncing device per user: `GET /v1/mailboxes/:user/entries?after=&limit=&wait_ms=` in a loop
 * (long poll), or without `wait_ms` every `intervalMs` (short poll). Reports every synced message
 * id to `Visibility`.
 */
export class DevicePool {
  private errors = new Tally();
  private requests = 0;
  private readonly stop = stopSignal();
  private readonly running: Promise<void>[] = [];
  private primed = 0;

  constructor(
    private readonly http: HttpClient,
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

  private async device(user: string): Promise<void> {
    let after: string | null = null;
    let first = true;
    const who = { tenant: this.tenant, user };
    while (!this.stop.signal.aborted) {
      const params = [`limit=500`];
      if (after !== null) params.push(`after=${after}`);
      if (this.mode.kind === 'long-poll' && !first) params.push(`wait_ms=${this.mode.waitMs}`);
      const wait = this.mode.kind === 'long-poll' ? this.mode.waitMs : 0;
      let page: SyncPage | null = null;
      try {
        this.requests++;
        const a = await this.http.call('GET', `/v1/mailboxes/${user}/entries?${params.join('&')}`, who, undefined, wait + 10_000, this.stop.signal);
        if (a.status === 200) page = a.body as SyncPage;
        else this.errors.add(errorCode(a));
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
      const now = performance.now();
      for (const e of page.entries) for (const ev of e.events) if (ev.message) this.visibility.seen(user, ev.message.message_id, now);
      after = page.next_after;
      if (this.mode.kind === 'short-poll' && !page.has_more) await sleep(this.mode.intervalMs);
    }
  }
}

/** One abort signal shared by every device's request (one listener per open request). */
function stopSignal(): AbortController {
  const c = new AbortController();
  setMaxListeners(0, c.signal);
  return c;
}
