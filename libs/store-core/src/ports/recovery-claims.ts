import type { CommitKey } from '../model/message';

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
