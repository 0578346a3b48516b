import type { RetentionMeta } from '@qim/store-core';
import type { ScriptArg } from '../redis/redis-io';
import type { StoredMetaFields } from './stored-retention-meta';
import { NO_META, decodeRetentionMeta } from './stored-retention-meta';

/** A user's retention meta as this store last saw it: the raw stored values (the guard) and their decoding. */
export interface KnownMeta {
  /** The five stored values, or `NO_META` when the user has none. */
  readonly raw: readonly ScriptArg[];
  /** Null when the user has no meta. */
  readonly meta: RetentionMeta | null;
}

export const NO_KNOWN_META: KnownMeta = Object.freeze({ raw: NO_META, meta: null });

/** Stored fields (or null = none) → `KnownMeta`; damage fails closed with `CorruptEntryError`. */
export function knownMetaOf(stored: StoredMetaFields | null): KnownMeta {
  return stored === null ? NO_KNOWN_META : { raw: stored, meta: decodeRetentionMeta(stored) };
}

/**
 * Bounded memory of users' retention metas (ADR-0022 §5: learnt from this store's own writes and
 * from what its scripts answered). Only a guess to plan from: every write that depends on it is a
 * compare-and-set, so a stale entry costs one more round trip, never a wrong write. The oldest
 * entry is dropped when full.
 */
export class MetaCache {
  private readonly map = new Map<string, KnownMeta>();

  constructor(private readonly capacity: number) {}

  get(user: string): KnownMeta | undefined {
    return this.map.get(user);
  }

  set(user: string, known: KnownMeta): void {
    this.map.delete(user);
    this.map.set(user, known);
    if (this.map.size > this.capacity) {
      const oldest = this.map.keys().next();
      if (oldest.done !== true) this.map.delete(oldest.value);
    }
  }

  forget(user: string): void {
    this.map.delete(user);
  }
}
