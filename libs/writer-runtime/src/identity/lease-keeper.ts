import { LeaseLostError } from '@qim/service-kit';
import type { ReadinessCheck } from '@qim/service-kit';
import type { LeaseGrant, WriterLeaseStore } from '@qim/store-core';

export interface LeaseKeeperOptions {
  readonly ttlMs: number;
  /**
   * How long a lost lease may stay lost while re-acquisition is retried (ms); past it `onTerminal`
   * is called once. Default: one TTL.
   */
  readonly reacquireMs?: number;
  /** Called when the lease is lost (sends stop, readiness turns red). */
  readonly onLost?: (reason: string) => void;
  /** Called when a lost lease was taken back (sends resume, readiness turns green). */
  readonly onRegained?: () => void;
  /** Called once when the lease stayed lost past `reacquireMs`: the process must end. */
  readonly onTerminal?: (reason: string) => void;
  /** Raises the HLC to the floor recorded with the id (by a holder in between) before ids are issued again. */
  readonly observeFloor?: (floor: bigint) => void;
  readonly now?: () => number;
}

interface Lost {
  readonly reason: string;
  readonly since: number;
}

/**
 * Keeps a writer-id lease alive: renews every ttl/3 and records the HLC high-water mark. The lease
 * counts as held only while the last successful renew is younger than the TTL minus a safety
 * margin. A refused renew (someone else holds the id) or an expired local deadline loses it: no
 * ids are issued, readiness is red, and each tick tries to take the same id back (free, or still
 * ours). Taken back → held again (readiness green without waiting for traffic). Still lost after
 * `reacquireMs` → `onTerminal` (the process exits non-zero with the reason).
 */
export class LeaseKeeper {
  private timer: NodeJS.Timeout | null = null;
  private validUntil: number;
  private lost: Lost | null = null;
  private terminal: string | null = null;
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

  private reacquireMs(): number {
    return this.opts.reacquireMs ?? this.opts.ttlMs;
  }

  start(): void {
    const every = Math.max(50, Math.floor(this.opts.ttlMs / 3));
    this.timer = setInterval(() => void this.renewOnce(), every);
    this.timer.unref();
  }

  /** One tick: renew a held lease, or try to take a lost one back (exposed for tests). */
  async renewOnce(): Promise<void> {
    if (this.terminal !== null) return;
    this.held();
    if (this.lost !== null) return this.reacquireOnce(this.lost);
    const started = this.now();
    try {
      const ok = await this.store.renew(this.grant, this.opts.ttlMs, this.hlc());
      if (!ok) return this.lose(`writer id ${this.grant.writerId} is held by another process`);
      this.validUntil = started + this.safeWindow();
    } catch (err) {
      if (this.now() >= this.validUntil) this.lose(`lease renewal failing: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private async reacquireOnce(lost: Lost): Promise<void> {
    if (this.now() - lost.since >= this.reacquireMs()) {
      this.terminal = `writer lease lost and not re-acquired within ${this.reacquireMs()} ms: ${lost.reason}`;
      this.opts.onTerminal?.(this.terminal);
      return;
    }
    const started = this.now();
    try {
      const floor = await this.store.reacquire(this.grant, this.opts.ttlMs);
      if (floor === null || this.lost !== lost) return;
      this.opts.observeFloor?.(floor);
      this.validUntil = started + this.safeWindow();
      this.lost = null;
      this.opts.onRegained?.();
    } catch {
      // Still unreachable: the next tick retries until the bound.
    }
  }

  private lose(reason: string): void {
    if (this.lost !== null) return;
    this.lost = { reason, since: this.now() };
    this.opts.onLost?.(reason);
  }

  /** True while the lease is certainly ours. */
  held(): boolean {
    if (this.lost === null && this.now() >= this.validUntil) this.lose('lease deadline passed without renewal');
    return this.lost === null;
  }

  /** Throws `LeaseLostError` unless the lease is held: call before issuing a message id. */
  assertHeld(): void {
    if (!this.held()) throw new LeaseLostError(`writer lease lost: ${this.lost?.reason}`);
  }

  readiness(): ReadinessCheck {
    return {
      name: 'writer-lease',
      check: async () => ({
        ok: this.held(),
        detail: { writerId: this.grant.writerId, lost: this.lost?.reason ?? null, terminal: this.terminal },
      }),
    };
  }

  /** Stops renewing and releases the id (when held), recording the HLC high-water mark. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.lost === null && this.terminal === null) await this.store.release(this.grant, this.hlc());
  }
}
