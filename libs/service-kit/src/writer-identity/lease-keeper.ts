import type { ReadinessCheck } from '../http/readiness';
import { LeaseLostError } from '../errors/service-errors';
import type { LeaseGrant, WriterLeaseStore } from './writer-lease';

export interface LeaseKeeperOptions {
  readonly ttlMs: number;
  /** Called once when the lease is lost (sends stop, readiness turns red). */
  readonly onLost?: (reason: string) => void;
  readonly now?: () => number;
}

/**
 * Keeps a writer-id lease alive: renews every ttl/3 and records the HLC high-water mark. The lease
 * counts as held only while the last successful renew is younger than the TTL minus a safety
 * margin; a refused renew (someone else holds the id) or an expired local deadline is terminal.
 */
export class LeaseKeeper {
  private timer: NodeJS.Timeout | null = null;
  private validUntil: number;
  private lostReason: string | null = null;
  private readonly now: () => number;

  constructor(
    private readonly store: WriterLeaseStore,
    readonly grant: LeaseGrant,
    private readonly hlc: () => bigint,
    private readonly opts: LeaseKeeperOptions,
  ) {
    this.now = opts.now ?? Date.now;
    this.validUntil = this.now() + this.safeWindow();
  }

  private safeWindow(): number {
    return Math.floor((this.opts.ttlMs * 2) / 3);
  }

  start(): void {
    const every = Math.max(50, Math.floor(this.opts.ttlMs / 3));
    this.timer = setInterval(() => void this.renewOnce(), every);
    this.timer.unref();
  }

  /** One renewal attempt (exposed for tests). */
  async renewOnce(): Promise<void> {
    if (this.lostReason !== null) return;
    const started = this.now();
    try {
      const ok = await this.store.renew(this.grant, this.opts.ttlMs, this.hlc());
      if (!ok) return this.lose(`writer id ${this.grant.writerId} is held by another process`);
      this.validUntil = started + this.safeWindow();
    } catch (err) {
      if (this.now() >= this.validUntil) this.lose(`lease renewal failing: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private lose(reason: string): void {
    if (this.lostReason !== null) return;
    this.lostReason = reason;
    this.opts.onLost?.(reason);
  }

  /** True while the lease is certainly ours. */
  held(): boolean {
    if (this.lostReason === null && this.now() >= this.validUntil) this.lose('lease deadline passed without renewal');
    return this.lostReason === null;
  }

  /** Throws `LeaseLostError` unless the lease is held: call before issuing a message id. */
  assertHeld(): void {
    if (!this.held()) throw new LeaseLostError(`writer lease lost: ${this.lostReason}`);
  }

  readiness(): ReadinessCheck {
    return {
      name: 'writer-lease',
      check: async () => ({
        ok: this.held(),
        detail: { writerId: this.grant.writerId, lost: this.lostReason },
      }),
    };
  }

  /** Stops renewing and releases the id, recording the HLC high-water mark. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.lostReason === null) await this.store.release(this.grant, this.hlc());
  }
}
