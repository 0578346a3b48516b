import { UnavailableError } from '@qim/store-core';
import type { LeaseGrant, WriterLeaseStore } from '@qim/store-core';

interface Held {
  token: string;
  expiresAt: number;
}

/** In-process writer leases for memory mode (development/test only): one process, one writer. HLC floors only rise. */
export class MemoryLeaseStore implements WriterLeaseStore {
  private readonly held = new Map<number, Held>();
  private readonly floors = new Map<number, bigint>();

  constructor(private readonly now: () => number = Date.now) {}

  async acquire(slots: number, ttlMs: number, token: string): Promise<LeaseGrant> {
    for (let id = 0; id < slots; id++) {
      const h = this.held.get(id);
      if (h && h.expiresAt > this.now()) continue;
      this.held.set(id, { token, expiresAt: this.now() + ttlMs });
      return { writerId: id, token, hlcFloor: this.floors.get(id) ?? 0n };
    }
    throw new UnavailableError(`all ${slots} writer ids are leased`);
  }

  async renew(grant: LeaseGrant, ttlMs: number, hlc: bigint): Promise<boolean> {
    const h = this.held.get(grant.writerId);
    if (!h || h.token !== grant.token || h.expiresAt <= this.now()) return false;
    h.expiresAt = this.now() + ttlMs;
    this.raiseFloor(grant.writerId, hlc);
    return true;
  }

  async reacquire(grant: LeaseGrant, ttlMs: number): Promise<bigint | null> {
    const h = this.held.get(grant.writerId);
    if (h && h.token !== grant.token && h.expiresAt > this.now()) return null;
    this.held.set(grant.writerId, { token: grant.token, expiresAt: this.now() + ttlMs });
    return this.floors.get(grant.writerId) ?? 0n;
  }

  /** Records `hlc` (even when the lease is no longer ours: a floor only rises) and frees the id if ours. */
  async release(grant: LeaseGrant, hlc: bigint): Promise<void> {
    this.raiseFloor(grant.writerId, hlc);
    if (this.held.get(grant.writerId)?.token === grant.token) this.held.delete(grant.writerId);
  }

  private raiseFloor(writerId: number, hlc: bigint): void {
    if (hlc > (this.floors.get(writerId) ?? 0n)) this.floors.set(writerId, hlc);
  }

  /** Test hook: another process takes writer id `writerId` (its lease and a raised HLC floor). */
  steal(writerId: number, token: string, ttlMs: number, floor?: bigint): void {
    this.held.set(writerId, { token, expiresAt: this.now() + ttlMs });
    if (floor !== undefined) this.raiseFloor(writerId, floor);
  }

  /** Test hook: expire a lease as if its owner had stalled past its TTL. */
  expire(writerId: number): void {
    this.held.delete(writerId);
  }

  async close(): Promise<void> {}
}
