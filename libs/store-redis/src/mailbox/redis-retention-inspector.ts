import { applyInspect, consumeExpired, expiredLedgerDays } from '@qim/store-core';
import type { BucketProof, Id128 } from '@qim/store-core';
import type { RedisKeys } from '../keys/redis-keys';
import type { RedisIo } from '../redis/redis-io';
import type { MailboxFaults } from './redis-mailbox-faults';
import { ScriptCode, errorForCode } from '../redis/script-codes';
import { ScriptReply } from '../redis/script-reply';
import { inspectRetentionCall, proofText } from './mailbox-script-args';
import type { ReleasedDay } from './mailbox-script-args';
import { knownMetaOf } from './meta-cache';
import type { KnownMeta } from './meta-cache';
import { META_FIELDS, dayProofOf, encodeRetentionMeta, storedMetaOf } from './stored-retention-meta';

/**
 * The lazy inspect of a user's expired ledger items (store-core `applyInspect`): read the meta and
 * the bucket proofs of its expired days, merge each proof's real max seq into the gap boundary
 * (never into trim), and write the new meta under a compare-and-set on the meta and on those proofs
 * as read (a proof raised meanwhile by an append whose clock was still before the expiry would
 * otherwise put its entry above the gap in a consumed day), releasing the consumed days' proofs.
 * Run by `rangeScan` before reading past an expired item, and by an
 * append whose ledger must change while an item has expired. Missing or lower proof → `CorruptEntryError`.
 */
export class RedisRetentionInspector {
  constructor(
    private readonly io: RedisIo,
    private readonly keys: RedisKeys,
    private readonly graceMs: bigint,
    private readonly faults: MailboxFaults | undefined = undefined,
  ) {}

  /** The meta stored afterwards, or undefined when a concurrent writer changed it first (read again). */
  async inspect(tenantId: Id128, userId: Id128, now: bigint): Promise<KnownMeta | undefined> {
    const u = this.keys.user(tenantId, userId);
    const [raw] = await this.io.commands([['HMGET', u.meta, ...META_FIELDS]], 'read');
    const stored = storedMetaOf(raw);
    const known = knownMetaOf(stored);
    if (stored === null || known.meta === null) return known;
    const meta = known.meta;
    const days = expiredLedgerDays(meta, now);
    if (days.length === 0) return known;
    const replies = await this.io.commands(
      days.map((d) => ['ZRANGE', u.proof(d), '0', '-1', 'WITHSCORES'] as const),
      'read',
    );
    const proofs = new Map<number, BucketProof>();
    days.forEach((day, i) => {
      const proof = dayProofOf(day, replies[i]);
      if (proof !== null) proofs.set(day, proof);
    });
    const next = applyInspect(meta, now, proofs);
    const released = consumeExpired(meta.ledger, now).expired.map((i): ReleasedDay => ({ day: i.day, expiresAt: i.expiresAt }));
    const encoded = encodeRetentionMeta(next);
    await this.faults?.beforeInspectWrite?.();
    const call = inspectRetentionCall(u, this.graceMs, stored, encoded, released, replies.map(proofText));
    const reply = ScriptReply.of(await this.io.script(call, 'write'), 'rangeScan inspect');
    if (reply.code === ScriptCode.CAS_LOST) return undefined;
    if (reply.code !== ScriptCode.OK) throw errorForCode(reply.code, 'rangeScan inspect');
    return { raw: encoded, meta: next };
  }
}
