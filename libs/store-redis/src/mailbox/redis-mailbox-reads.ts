import {
  CorruptEntryError,
  CursorExpiredError,
  InvalidInputError,
  PageCutter,
  StoreError,
  UnavailableError,
  assertSeqInEpoch,
  decodeMailboxEntry,
  isId128,
  settleRangeScan,
} from '@qim/store-core';
import type { Clock, Id128, MailboxEntry, RangeScanOutcome, RangeScanPage, RangeScanRead } from '@qim/store-core';
import type { RedisKeys, UserKeys } from '../keys/redis-keys';
import { u64FromHex16 } from '../redis/hex64';
import type { RedisIo, ScriptCall } from '../redis/redis-io';
import { ScriptCode, errorForCode } from '../redis/script-codes';
import { ScriptReply } from '../redis/script-reply';
import { rangeScanCall, truncateBeforeCall } from './mailbox-script-args';
import type { MetaCache } from './meta-cache';
import type { RedisRetentionInspector } from './redis-retention-inspector';

/** Times a range scan runs the inspect and reads again before giving up (concurrent writers). */
const SCAN_RETRIES = 16;

/** A read whose arguments passed `rangeScan`'s checks, with its page cutter and key names. */
interface CheckedScan {
  readonly read: RangeScanRead;
  readonly cutter: PageCutter<MailboxEntry>;
  readonly keys: UserKeys;
}

export interface MailboxReadsConfig {
  readonly io: RedisIo;
  readonly keys: RedisKeys;
  readonly clock: Clock;
  readonly epoch: number;
  readonly cache: MetaCache;
  readonly inspector: RedisRetentionInspector;
}

/**
 * `rangeScan`, `rangeScanMany` and `truncateBefore` over a user's tag. The scan reads in one script (trim, gap,
 * the ledger days' indexes, which hold the entry bytes); an expired ledger item makes it run the inspect first, so a
 * cursor is never read past an expired entry.
 */
export class RedisMailboxReads {
  constructor(private readonly c: MailboxReadsConfig) {}

  async rangeScan(tenantId: Id128, userId: Id128, after: bigint, upTo: bigint, limit: number, maxBytes?: number): Promise<RangeScanPage> {
    const scan = this.checked({ tenantId, userId, after, upTo, limit, maxBytes });
    if (after > upTo) return { entries: [], next: after, hasMore: false };
    for (let attempt = 0; attempt < SCAN_RETRIES; attempt++) {
      const now = this.c.clock.nowMs();
      const page = this.answer(await this.c.io.script(this.call(scan, now), 'read'), scan, now);
      if (page !== null) return page;
      await this.inspect(tenantId, userId, now);
    }
    throw new UnavailableError('rangeScan: retention meta kept changing under concurrent writers');
  }

  /**
   * Several users' scans as one pipelined write (ADR-0041): one `range-scan` script per user, each on
   * its own user's tag (so a Cluster client sends each to its node), every answer decoded as
   * `rangeScan` decodes it. A user whose ledger must be inspected first goes on alone through
   * `rangeScan` after the inspect (rare: a ledger day expired since the last write).
   */
  async rangeScanMany(reads: readonly RangeScanRead[]): Promise<RangeScanOutcome[]> {
    const out: RangeScanOutcome[] = new Array<RangeScanOutcome>(reads.length);
    const pending: { readonly i: number; readonly scan: CheckedScan }[] = [];
    reads.forEach((read, i) => {
      try {
        const scan = this.checked(read);
        if (read.after > read.upTo) out[i] = { ok: true, page: { entries: [], next: read.after, hasMore: false } };
        else pending.push({ i, scan });
      } catch (error) {
        if (!(error instanceof StoreError)) throw error;
        out[i] = { ok: false, error };
      }
    });
    if (pending.length === 0) return out;
    const now = this.c.clock.nowMs();
    const replies = await this.c.io.scriptsPipelined(
      pending.map((p) => this.call(p.scan, now)),
      'read',
    );
    await Promise.all(
      pending.map(async ({ i, scan }, k) => {
        out[i] = await settleRangeScan(async () => {
          const page = this.answer(replies[k], scan, now);
          if (page !== null) return page;
          await this.inspect(scan.read.tenantId, scan.read.userId, now);
          const r = scan.read;
          return this.rangeScan(r.tenantId, r.userId, r.after, r.upTo, r.limit, r.maxBytes);
        });
      }),
    );
    return out;
  }

  /** A read's arguments checked as `rangeScan` checks them (ids, epoch of both ends, budgets). */
  private checked(read: RangeScanRead): CheckedScan {
    if (!isId128(read.tenantId) || !isId128(read.userId)) throw new InvalidInputError('rangeScan: ids must be canonical');
    assertSeqInEpoch(read.after, this.c.epoch);
    assertSeqInEpoch(read.upTo, this.c.epoch);
    const cutter = new PageCutter<MailboxEntry>(read.limit, read.maxBytes);
    return { read, cutter, keys: this.c.keys.user(read.tenantId, read.userId) };
  }

  private call(scan: CheckedScan, now: bigint): ScriptCall {
    const r = scan.read;
    return rangeScanCall(scan.keys, now, r.after, r.upTo, r.limit + 1, this.c.epoch, r.maxBytes);
  }

  /** A scan script's answer: the page, null when the user's ledger must be inspected first, or the error it names. */
  private answer(raw: unknown, scan: CheckedScan, now: bigint): RangeScanPage | null {
    const reply = ScriptReply.of(raw, 'rangeScan');
    const r = scan.read;
    switch (reply.code) {
      case ScriptCode.CURSOR_EXPIRED: {
        const boundary = u64FromHex16(reply.buf(1), 'cursor boundary');
        throw new CursorExpiredError(`cursor ${r.after} is below the retained boundary ${boundary}`, boundary);
      }
      case ScriptCode.NEEDS_INSPECT:
        return null;
      case ScriptCode.OK:
        return this.page(reply, r.tenantId, r.userId, r.upTo, scan.cutter, now);
      default:
        throw errorForCode(reply.code, 'rangeScan: retention meta is damaged');
    }
  }

  /** Runs the retention inspect of a user and remembers the meta it leaves. */
  private async inspect(tenantId: Id128, userId: Id128, now: bigint): Promise<void> {
    const known = await this.c.inspector.inspect(tenantId, userId, now);
    const user = `${tenantId}${userId}`;
    if (known === undefined) this.c.cache.forget(user);
    else this.c.cache.set(user, known);
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

  /**
   * Raises the trim, then (replica acks on, ADR-0038) waits until a replica holds it, whatever the
   * script answered: a raise only the old primary had would be lowered again by a failover, and
   * cursors below it would read entries the acknowledged truncation made unreadable. A retry after
   * a failed WAIT finds the trim raised and waits again (fenced, so for the first attempt's write).
   */
  async truncateBefore(tenantId: Id128, userId: Id128, seq: bigint): Promise<void> {
    if (!isId128(tenantId) || !isId128(userId)) throw new InvalidInputError('truncateBefore: ids must be canonical');
    assertSeqInEpoch(seq, this.c.epoch);
    const u = this.c.keys.user(tenantId, userId);
    await this.c.io.script(truncateBeforeCall(u, seq), 'write');
    await this.c.io.replicated([u.trim], 'truncateBefore');
  }
}
