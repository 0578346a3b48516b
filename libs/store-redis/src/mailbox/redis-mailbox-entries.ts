import {
  CorruptEntryError,
  CursorExpiredError,
  InvalidInputError,
  UnavailableError,
  applyAppend,
  applyInspect,
  assertSeqInEpoch,
  assertU64,
  canonicalizeEvents,
  consumeExpired,
  cutBatch,
  dayOf,
  decodeMailboxEntry,
  encodeMailboxEntry,
  entryExpiry,
  expiredLedgerDays,
  isId128,
} from '@qim/store-core';
import type { AppendReport, BucketProof, Clock, Id128, MailboxEntry, MailboxEntryInput, MailboxGcConfig, RangeScanPage, RetentionMeta, ShardEpoch } from '@qim/store-core';
import type { RedisKeys } from '../keys/redis-keys';
import { u64FromHex16 } from '../redis/hex64';
import type { RedisIo, ScriptCall } from '../redis/redis-io';
import { ScriptCode, errorForCode } from '../redis/script-codes';
import { ScriptReply } from '../redis/script-reply';
import { appendEntriesCall, inspectRetentionCall, rangeScanCall, truncateBeforeCall } from './mailbox-script-args';
import type { AppendEntryArg, ReleasedDay } from './mailbox-script-args';
import { META_FIELDS, NO_META, dayProofOf, decodeRetentionMeta, encodeRetentionMeta, storedMetaOf } from './stored-retention-meta';
import type { StoredMetaFields } from './stored-retention-meta';

/** Times a user's append or inspect re-reads after its meta compare-and-set lost to a concurrent writer. */
const CAS_RETRIES = 16;

interface Prepared {
  readonly entry: MailboxEntry;
  readonly bytes: Buffer;
  readonly day: number;
}

export interface MailboxEntriesConfig {
  readonly io: RedisIo;
  readonly keys: RedisKeys;
  readonly clock: Clock;
  readonly shardEpoch: ShardEpoch;
  readonly gc: MailboxGcConfig;
  readonly physicalGraceMs: bigint;
}

/**
 * Entries and the V4 retention proof over Redis. Decisions come from store-core (`applyAppend`,
 * `applyInspect`, `checkCursor` semantics, `cutBatch`); each user's writes are one atomic script
 * guarded by a compare-and-set on the whole meta as read, so concurrent appends and inspects of one
 * user linearise exactly as the seed's meta LWT.
 */
export class RedisMailboxEntries {
  constructor(private readonly c: MailboxEntriesConfig) {}

  private prepare(input: MailboxEntryInput): Prepared {
    if (!isId128(input.tenantId) || !isId128(input.userId)) throw new InvalidInputError('entry ids must be canonical');
    const { offset } = assertSeqInEpoch(input.mailboxSeq, this.c.shardEpoch.epoch);
    if (offset === null) throw new InvalidInputError('an entry cannot sit at the start-of-epoch seq');
    if (typeof input.createdAt !== 'bigint' || input.createdAt < 0n) throw new InvalidInputError('createdAt must be a u64');
    assertU64(input.createdAt, 'createdAt');
    const entry: MailboxEntry = { ...input, events: canonicalizeEvents(input.events), expiresAt: entryExpiry(input.createdAt, this.c.gc.entryRetentionMs) };
    return { entry, bytes: encodeMailboxEntry(entry), day: dayOf(input.createdAt) };
  }

  /** Validates every group first (one bad group → nothing written), then one atomic script per user. */
  async appendBatch(inputs: readonly MailboxEntryInput[]): Promise<AppendReport> {
    const prepared = inputs.map((i) => this.prepare(i));
    const byUser = new Map<string, Prepared[]>();
    const seen = new Set<string>();
    for (const p of prepared) {
      const user = `${p.entry.tenantId}${p.entry.userId}`;
      const k = `${user}:${p.entry.mailboxSeq}`;
      if (seen.has(k)) throw new InvalidInputError(`two groups for one (user, seq) in a batch: ${k}`);
      seen.add(k);
      byUser.set(user, [...(byUser.get(user) ?? []), p]);
    }
    let pending = [...byUser.values()];
    let written = 0;
    let expired = 0;
    for (let attempt = 0; attempt < CAS_RETRIES && pending.length > 0; attempt++) {
      const metas = await this.c.io.commands(pending.map((g) => ['HMGET', this.userKeys(g[0]!).meta, ...META_FIELDS] as const), 'read');
      const now = this.c.clock.nowMs();
      const plans = pending.map((group, i) => this.planUser(group, storedMetaOf(metas[i]), now));
      const replies = await this.c.io.scripts(plans.map((p) => p.call), 'write');
      const retry: Prepared[][] = [];
      replies.forEach((raw, i) => {
        const reply = ScriptReply.of(raw, 'appendBatch');
        if (reply.code === ScriptCode.CAS_LOST) retry.push(pending[i]!);
        else if (reply.code !== ScriptCode.OK) throw errorForCode(reply.code, 'appendBatch');
        else {
          written += plans[i]!.written;
          expired += plans[i]!.expired;
        }
      });
      pending = retry;
    }
    if (pending.length > 0) throw new UnavailableError('appendBatch: retention meta kept changing under concurrent writers');
    return { written, expired };
  }

  private userKeys(p: Prepared) {
    return this.c.keys.user(p.entry.tenantId, p.entry.userId);
  }

  private planUser(group: readonly Prepared[], stored: StoredMetaFields | null, now: bigint): { call: ScriptCall; written: number; expired: number } {
    const initial = stored === null ? null : decodeRetentionMeta(stored);
    let meta: RetentionMeta | null = initial;
    let changed = false;
    const entries: AppendEntryArg[] = [];
    for (const p of group) {
      const out = applyAppend(meta, { day: p.day, seq: p.entry.mailboxSeq, expiresAt: p.entry.expiresAt }, now);
      if (out.changed) {
        meta = out.meta;
        changed = true;
      }
      entries.push({ epoch: this.c.shardEpoch.epoch, day: p.day, seq: p.entry.mailboxSeq, expiresAt: p.entry.expiresAt, live: !out.expiredReplay, bytes: p.bytes });
    }
    const liveDays = new Set((meta?.ledger ?? []).map((i) => i.day));
    const released = new Map<number, bigint>();
    for (const item of initial?.ledger ?? []) if (!liveDays.has(item.day)) released.set(item.day, item.expiresAt);
    for (const e of entries) if (!e.live && !liveDays.has(e.day) && !released.has(e.day)) released.set(e.day, e.expiresAt);
    const call = appendEntriesCall(this.userKeys(group[0]!), {
      now,
      graceMs: this.c.physicalGraceMs,
      expected: stored ?? NO_META,
      next: changed && meta !== null ? encodeRetentionMeta(meta) : null,
      liveDays: [...liveDays],
      released: [...released].map(([day, expiresAt]): ReleasedDay => ({ day, expiresAt })),
      entries,
    });
    const live = entries.filter((e) => e.live).length;
    return { call, written: live, expired: entries.length - live };
  }

  async rangeScan(tenantId: Id128, userId: Id128, after: bigint, upTo: bigint, limit: number): Promise<RangeScanPage> {
    if (!isId128(tenantId) || !isId128(userId)) throw new InvalidInputError('rangeScan: ids must be canonical');
    assertSeqInEpoch(after, this.c.shardEpoch.epoch);
    assertSeqInEpoch(upTo, this.c.shardEpoch.epoch);
    if (!Number.isInteger(limit) || limit < 1) throw new InvalidInputError(`rangeScan: limit must be an integer ≥ 1: ${limit}`);
    if (after > upTo) return { entries: [], next: after, hasMore: false };
    const u = this.c.keys.user(tenantId, userId);
    for (let attempt = 0; attempt < CAS_RETRIES; attempt++) {
      const now = this.c.clock.nowMs();
      const reply = ScriptReply.of(await this.c.io.script(rangeScanCall(u, now, after, upTo, limit + 1, this.c.shardEpoch.epoch), 'read'), 'rangeScan');
      switch (reply.code) {
        case ScriptCode.CURSOR_EXPIRED: {
          const boundary = u64FromHex16(reply.buf(1), 'cursor boundary');
          throw new CursorExpiredError(`cursor ${after} is below the retained boundary ${boundary}`, boundary);
        }
        case ScriptCode.NEEDS_INSPECT:
          await this.inspect(tenantId, userId, now);
          continue;
        case ScriptCode.OK:
          return this.page(reply, tenantId, userId, upTo, limit, now);
        default:
          throw errorForCode(reply.code, 'rangeScan: retention meta is damaged');
      }
    }
    throw new UnavailableError('rangeScan: retention meta kept changing under concurrent writers');
  }

  private page(reply: ScriptReply, tenantId: Id128, userId: Id128, upTo: bigint, limit: number, now: bigint): RangeScanPage {
    if (reply.int(1) === 0) return { entries: [], next: upTo, hasMore: false };
    const entries: MailboxEntry[] = [];
    for (let i = 2; i < reply.length; i += 2) {
      const seq = u64FromHex16(reply.buf(i), 'entry seq');
      const bytes = reply.bufOrNull(i + 1);
      if (bytes === null) throw new CorruptEntryError(`entry ${seq} is indexed but missing`);
      let e: MailboxEntry;
      try {
        e = decodeMailboxEntry(bytes);
      } catch (err) {
        throw new CorruptEntryError(`entry ${seq} is undecodable`, { cause: err });
      }
      if (e.tenantId !== tenantId || e.userId !== userId || e.mailboxSeq !== seq) throw new CorruptEntryError(`entry ${seq} carries other coordinates`);
      if (e.expiresAt > now) entries.push(e);
    }
    const { taken, cut } = cutBatch(entries, limit);
    if (cut) return { entries: taken, next: taken[taken.length - 1]!.mailboxSeq, hasMore: true };
    return { entries: taken, next: upTo, hasMore: false };
  }

  /** Lazy inspect of expired ledger items: proofs read, `applyInspect`, meta compare-and-set. */
  private async inspect(tenantId: Id128, userId: Id128, now: bigint): Promise<void> {
    const u = this.c.keys.user(tenantId, userId);
    const [raw] = await this.c.io.commands([['HMGET', u.meta, ...META_FIELDS]], 'read');
    const stored = storedMetaOf(raw);
    if (stored === null) return;
    const meta = decodeRetentionMeta(stored);
    const days = expiredLedgerDays(meta, now);
    if (days.length === 0) return;
    const replies = await this.c.io.commands(days.map((d) => ['HGETALL', u.proof(d)] as const), 'read');
    const proofs = new Map<number, BucketProof>();
    days.forEach((day, i) => {
      const proof = dayProofOf(day, replies[i]);
      if (proof !== null) proofs.set(day, proof);
    });
    const next = applyInspect(meta, now, proofs);
    const released = consumeExpired(meta.ledger, now).expired.map((i): ReleasedDay => ({ day: i.day, expiresAt: i.expiresAt }));
    const reply = ScriptReply.of(await this.c.io.script(inspectRetentionCall(u, this.c.physicalGraceMs, stored, encodeRetentionMeta(next), released), 'write'), 'rangeScan inspect');
    if (reply.code !== ScriptCode.OK && reply.code !== ScriptCode.CAS_LOST) throw errorForCode(reply.code, 'rangeScan inspect');
  }

  async truncateBefore(tenantId: Id128, userId: Id128, seq: bigint): Promise<void> {
    if (!isId128(tenantId) || !isId128(userId)) throw new InvalidInputError('truncateBefore: ids must be canonical');
    assertSeqInEpoch(seq, this.c.shardEpoch.epoch);
    await this.c.io.script(truncateBeforeCall(this.c.keys.user(tenantId, userId), seq), 'write');
  }
}

