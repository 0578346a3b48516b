import { COMMIT_STEP_TEXTS, CorruptEntryError, commitConflict, encodeMessageRecord, recordTtlSeconds } from '@qim/store-core';
import type { Clock, CommitIntent, MessageRecord } from '@qim/store-core';
import type { ConversationKeys, RedisKeys } from '../keys/redis-keys';
import type { RedisIo } from '../redis/redis-io';
import { ScriptCode } from '../redis/script-codes';
import { ScriptReply } from '../redis/script-reply';
import { isCountable, putRecordCall } from './message-script-args';
import { seqClaimBody } from './seq-claim-value';

/** What the conversation-side record writes need. */
export interface RecordWriteConfig {
  readonly io: RedisIo;
  readonly keys: RedisKeys;
  readonly clock: Clock;
  readonly physicalGraceMs: bigint;
}

/**
 * `put-record` for the commit `commitMember` in `conv`, the record's conversation (with the
 * ephemeral registration in the same write):
 * true when written; false when the conversation holds no live seq claim of this intent (the stored
 * commit then decides). Another record at the seq is a conflict of its own.
 */
export async function writeRecord(
  c: RecordWriteConfig,
  conv: ConversationKeys,
  commitMember: string,
  intent: CommitIntent,
  r: MessageRecord,
): Promise<boolean> {
  const ttl = recordTtlSeconds(r.retention);
  const call = putRecordCall(conv, commitMember, {
    seq: r.seq,
    record: encodeMessageRecord(r),
    expiresAt: ttl === null ? null : r.createdAt + BigInt(ttl) * 1000n,
    countable: isCountable(r.kind, r.control),
    senderId: r.senderId,
    graceMs: c.physicalGraceMs,
    now: c.clock.nowMs(),
    claim: seqClaimBody({ identity: intent.identity, seq: intent.seq, messageId: intent.messageId, createdAt: intent.createdAt }),
  });
  const [, raw] = await Promise.all([registerEphemeral(c, conv, r), c.io.script(call, 'write')]);
  const reply = ScriptReply.of(raw, 'putRecord');
  if (reply.code === ScriptCode.OK) return true;
  if (reply.code === ScriptCode.CONFLICT) throw commitConflict('putRecord', COMMIT_STEP_TEXTS.seqTaken);
  if (reply.code === ScriptCode.CORRUPT) throw new CorruptEntryError('putRecord: the stored seq claim is malformed');
  return false;
}

/**
 * An Ephemeral message's conversation is registered for history GC in the same writes as its
 * record and its RECORDED move (before and after the record, so a GC pass racing the write
 * re-finds it). Other retention classes: nothing.
 */
export async function registerEphemeral(c: RecordWriteConfig, conv: ConversationKeys, r: MessageRecord): Promise<void> {
  const ttl = recordTtlSeconds(r.retention);
  if (ttl === null) return;
  await c.io.commands([['ZADD', conv.registry, 'LT', (r.createdAt + BigInt(ttl) * 1000n).toString(), conv.member]], 'write');
}
