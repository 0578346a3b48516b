import type { CommitKey, RecoveryClaims } from '@qim/store-core';
import { commitKeyString } from '@qim/store-core';

/** Claims by commit key: owner token and expiry (epoch ms). */
export type ClaimTable = Map<string, { readonly owner: string; readonly expiresAt: number }>;

/**
 * In-process claims (memory mode: one writer process). Writers sharing one `table` behave like
 * writers sharing one Redis.
 */
export class MemoryRecoveryClaims implements RecoveryClaims {
  constructor(
    private readonly owner: string,
    private readonly now: () => number = Date.now,
    private readonly table: ClaimTable = new Map(),
  ) {}

  async claim(key: CommitKey, ttlMs: number): Promise<boolean> {
    const k = commitKeyString(key);
    const h = this.table.get(k);
    if (h !== undefined && h.owner !== this.owner && h.expiresAt > this.now()) return false;
    this.table.set(k, { owner: this.owner, expiresAt: this.now() + ttlMs });
    return true;
  }
}
