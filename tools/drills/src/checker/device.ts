import { QimResyncRequiredError } from '@qim/client';
import type { Id128, QimClient, SyncPage } from '@qim/client';
import { sleep } from './errors';
import type { DeviceObservation } from './model';
import { messageKey } from './model';

/**
 * A device following one user's mailbox: long-poll sync through `@qim/client`, the cursor kept
 * after each processed page; when the iteration fails (service killed, retries exhausted) it starts
 * again from that cursor. A 410 makes it drop what it had and start over, as a real device must.
 */
export class SyncingDevice {
  private cursor: bigint | null = null;
  private received: string[] = [];
  private entrySeqs: bigint[] = [];
  private readonly resyncs: string[] = [];
  private readonly stop = new AbortController();
  private loop: Promise<void> | null = null;
  failures = 0;

  constructor(
    readonly userId: Id128,
    readonly stable: boolean,
    private readonly clientAt: (attempt: number) => QimClient,
    private readonly maxFailures = 200,
  ) {}

  private take(page: SyncPage): void {
    for (const e of page.entries) {
      this.entrySeqs.push(e.seq);
      for (const ev of e.events) if (ev.message) this.received.push(messageKey(ev.message.conversationId, ev.message.seq));
    }
    this.cursor = page.nextAfter;
  }

  private async onResync(code: string): Promise<void> {
    this.resyncs.push(code);
    this.received = [];
    this.entrySeqs = [];
    this.cursor = null;
  }

  private async pass(follow: boolean, attempt: number, signal?: AbortSignal): Promise<void> {
    const pages = this.clientAt(attempt).sync({
      after: this.cursor,
      follow,
      waitMs: 1_000,
      limit: 4,
      signal,
      onResync: ({ error }) => this.onResync(error.code),
    });
    for await (const page of pages) this.take(page);
  }

  /** Starts following in the background. */
  start(): void {
    this.loop = (async () => {
      for (let attempt = 0; !this.stop.signal.aborted && this.failures < this.maxFailures; attempt += 1) {
        try {
          await this.pass(true, attempt, this.stop.signal);
        } catch (err) {
          if (this.stop.signal.aborted) return;
          if (err instanceof QimResyncRequiredError) await this.onResync(err.code);
          this.failures += 1;
          await sleep(300);
        }
      }
    })();
  }

  /** Stops following, then reads whatever is left from the cursor (bounded attempts). */
  async finish(): Promise<DeviceObservation> {
    this.stop.abort();
    await this.loop;
    for (let attempt = 0; attempt < 20; attempt += 1) {
      try {
        await this.pass(false, attempt);
        break;
      } catch (err) {
        if (err instanceof QimResyncRequiredError) await this.onResync(err.code);
        this.failures += 1;
        await sleep(500);
      }
    }
    return { userId: this.userId, stable: this.stable, received: this.received, entrySeqs: this.entrySeqs, resyncs: this.resyncs };
  }
}
