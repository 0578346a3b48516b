import { learntLedgerTrusted } from '@qim/store-core';
import type { Clock, RetentionMeta } from '@qim/store-core';
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
 * from what its scripts answered). A guess to plan from — every script write that depends on it is
 * a compare-and-set, so a stale entry costs one more round trip — and the meta the plain path
 * (`WarmDays`) relies on without reading it. A ledger item's expiry may move *earlier* (a writer with
 * a shorter retention, issue 27), so with a clock an entry is given out only
 * `LEARNT_LEDGER_TRUST_MS` after it was set (store-core keeps every lowered expiry beyond that trust
 * plus the plain path's margin); then the user is planned as unknown and the script's answer (its
 * stored meta) is learnt again. The oldest entry is dropped when full.
 */
export class MetaCache {
  private readonly map = new Map<string, { readonly known: KnownMeta; readonly at: bigint }>();

  /** @param clock the store's clock; without one (unit tests) entries never age. */
  constructor(
    private readonly capacity: number,
    private readonly clock: Clock | null = null,
  ) {}

  get(user: string): KnownMeta | undefined {
    const entry = this.map.get(user);
    if (entry === undefined) return undefined;
    if (this.clock !== null && !learntLedgerTrusted(entry.at, this.clock.nowMs())) {
      this.map.delete(user);
      return undefined;
    }
    return entry.known;
  }

  set(user: string, known: KnownMeta): void {
    this.map.delete(user);
    this.map.set(user, { known, at: this.clock?.nowMs() ?? 0n });
    if (this.map.size > this.capacity) {
      const oldest = this.map.keys().next();
      if (oldest.done !== true) this.map.delete(oldest.value);
    }
  }

  forget(user: string): void {
    this.map.delete(user);
  }
}
