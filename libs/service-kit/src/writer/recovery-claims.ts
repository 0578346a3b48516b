import type { CommitKey } from '@qim/store-core';
import { commitKeyString } from '@qim/store-core';

/**
 * Short per-commit claims that share recovery between writer processes: before a writer resumes a
 * commit found by its recovery scan it claims the commit for `ttlMs`; while the claim lives, other
 * writers leave that commit alone, so a slow commit is republished by one writer, not by all. The
 * holder may claim again (its next pass retries a commit it failed to finish). A claim is never
 * released: it expires, so a writer that died mid-resume only delays the commit by `ttlMs`.
 */
export interface RecoveryClaims {
  /** Claims `key` for `ttlMs` (ms) for this writer; false while another writer's claim lives. */
  claim(key: CommitKey, ttlMs: number): Promise<boolean>;
}

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
