import { CorruptEntryError, CursorExpiredError, InvalidInputError, PageCutter, UnavailableError, assertSeqInEpoch, decodeMailboxEntry, isId128 } from '@qim/store-core';
import type { Clock, Id128, MailboxEntry, RangeScanPage } from '@qim/store-core';
import type { RedisKeys } from '../keys/redis-keys';
import { u64FromHex16 } from '../redis/hex64';
import type { RedisIo } from '../redis/redis-io';
import { ScriptCode, errorForCode } from '../redis/script-codes';
import { ScriptReply } from '../redis/script-reply';
import { rangeScanCall, truncateBeforeCall } from './mailbox-script-args';
import type { MetaCache } from './meta-cache';
import type { RedisRetentionInspector } from './redis-retention-inspector';

/** Times a range scan runs the inspect and reads again before giving up (concurrent writers). */
const SCAN_RETRIES = 16;

export interface MailboxReadsConfig {
  readonly io: RedisIo;
  readonly keys: RedisKeys;
  readonly clock: Clock;
  readonly epoch: number;
  readonly cache: MetaCache;
  readonly inspector: RedisRetentionInspector;
}

/**
 * `rangeScan` and `truncateBefore` over a user's tag. The scan reads in one script (trim, gap,
 * the ledger days' indexes, which hold the entry bytes); an expired ledger item makes it run the inspect first, so a
 * cursor is never read past an expired entry.
 */
export class RedisMailboxReads {
  constructor(private readonly c: MailboxReadsConfig) {}

  async rangeScan(tenantId: Id128, userId: Id128, after: bigint, upTo: bigint, limit: number, maxBytes?: number): Promise<RangeScanPage> {
    if (!isId128(tenantId) || !isId128(userId)) throw new InvalidInputError('rangeScan: ids must be canonical');
    assertSeqInEpoch(after, this.c.epoch);
    assertSeqInEpoch(upTo, this.c.epoch);
    const cutter = new PageCutter<MailboxEntry>(limit, maxBytes);
    if (after > upTo) return { entries: [], next: after, hasMore: false };
    const u = this.c.keys.user(tenantId, userId);
    for (let attempt = 0; attempt < SCAN_RETRIES; attempt++) {
      const now = this.c.clock.nowMs();
      const reply = ScriptReply.of(await this.c.io.script(rangeScanCall(u, now, after, upTo, limit + 1, this.c.epoch, maxBytes), 'read'), 'rangeScan');
      switch (reply.code) {
        case ScriptCode.CURSOR_EXPIRED: {
          const boundary = u64FromHex16(reply.buf(1), 'cursor boundary');
          throw new CursorExpiredError(`cursor ${after} is below the retained boundary ${boundary}`, boundary);
        }
        case ScriptCode.NEEDS_INSPECT: {
          const known = await this.c.inspector.inspect(tenantId, userId, now);
          const user = `${tenantId}${userId}`;
          if (known === undefined) this.c.cache.forget(user);
          else this.c.cache.set(user, known);
          continue;
        }
        case ScriptCode.OK:
          return this.page(reply, tenantId, userId, upTo, cutter, now);
        default:
          throw errorForCode(reply.code, 'rangeScan: retention meta is damaged');
      }
    }
    throw new UnavailableError('rangeScan: retention meta kept changing under concurrent writers');
  }

  /**
   * The page of a script answer: every answered entry decoded and checked, the live ones cut. The
   * script stops reading where the page's budgets end (`more`): then the page ends at its last
   * entry read — an entry the reader drops as expired still counts as read past.
   */
  private page(reply: ScriptReply, tenantId: Id128, userId: Id128, upTo: bigint, cutter: PageCutter<MailboxEntry>, now: bigint): RangeScanPage {
    if (reply.int(1) === 0) return { entries: [], next: upTo, hasMore: false };
    const more = reply.int(2) === 1;
    const entries: MailboxEntry[] = [];
    let previous: bigint | null = null;
    for (let i = 3; i < reply.length; i += 2) {
      const seq = u64FromHex16(reply.buf(i), 'entry seq');
      // Same bytes rewrite one member; a second member under one seq is another writer's entry.
      if (seq === previous) throw new CorruptEntryError(`entry ${seq} is stored twice with different bytes`);
      previous = seq;
      const bytes = reply.buf(i + 1);
      let e: MailboxEntry;
      try {
        e = decodeMailboxEntry(bytes);
      } catch (err) {
        throw new CorruptEntryError(`entry ${seq} is undecodable`, { cause: err });
      }
      if (e.tenantId !== tenantId || e.userId !== userId || e.mailboxSeq !== seq) throw new CorruptEntryError(`entry ${seq} carries other coordinates`);
      if (e.expiresAt > now) entries.push(e);
    }
    for (const e of entries) if (!cutter.offer(e)) break;
    const taken = cutter.taken;
    if (cutter.cut) return { entries: taken, next: taken[taken.length - 1]!.mailboxSeq, hasMore: true };
    if (more && previous !== null) return { entries: taken, next: previous, hasMore: true };
    return { entries: taken, next: upTo, hasMore: false };
  }

  async truncateBefore(tenantId: Id128, userId: Id128, seq: bigint): Promise<void> {
    if (!isId128(tenantId) || !isId128(userId)) throw new InvalidInputError('truncateBefore: ids must be canonical');
    assertSeqInEpoch(seq, this.c.epoch);
    await this.c.io.script(truncateBeforeCall(this.c.keys.user(tenantId, userId), seq), 'write');
  }
}
