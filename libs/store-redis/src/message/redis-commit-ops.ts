import {
  ConflictError,
  InvalidStateError,
  NotFoundError,
  UnavailableError,
  bytesEqual,
  commitKeyOf,
  encodeCommitIntent,
  encodeMessageRecord,
  hasReached,
  intentsEqual,
  recordFromIntent,
  recordsEqual,
  requestIdentity,
  validateReserveInput,
  validateSendRequest,
} from '@qim/store-core';
import type { Clock, CommitIntent, CommitKey, CommitSnapshot, Id128, MessageRecord, Publication, ReserveInput, ReserveResult, SendRequest } from '@qim/store-core';
import type { RedisKeys } from '../keys/redis-keys';
import { u64FromI64Decimal } from '../redis/decimal';
import type { RedisIo } from '../redis/redis-io';
import { errorForCode, ScriptCode } from '../redis/script-codes';
import { ScriptReply } from '../redis/script-reply';
import { isCountable, markCommittedCall, markOutboxedCall, markRecordedCall, putRecordCall, reserveCommitCall } from './message-script-args';
import { COMMIT_FIELDS, parseStoredCommit, snapshotOf } from './stored-commit';
import type { StoredCommit } from './stored-commit';

/** Times a state move re-reads after its CAS guard lost to a concurrent writer. */
const CAS_RETRIES = 8;

export interface CommitOpsConfig {
  readonly io: RedisIo;
  readonly keys: RedisKeys;
  readonly clock: Clock;
  readonly commitAuxTtlMs: bigint;
  readonly physicalGraceMs: bigint;
}

/**
 * The commit lifecycle over Redis. reserve is three steps, each single-tag, in the seed's
 * crash-safe order: (1) read the commit (replay / conflict answered without allocating),
 * (2) INCR the conversation seq (a seq is never reused; a crash or a lost race leaves a hole),
 * (3) one script creates the RESERVED commit NX together with its recovery index member.
 */
export class RedisCommitOps {
  constructor(private readonly c: CommitOpsConfig) {}

  async load(key: CommitKey): Promise<StoredCommit | null> {
    const k = this.c.keys.commit(key);
    const [reply] = await this.c.io.commands([['HMGET', k.hash, ...COMMIT_FIELDS]], 'read');
    return parseStoredCommit(reply, this.c.clock.nowMs());
  }

  async reserve(raw: ReserveInput): Promise<ReserveResult> {
    const input = validateReserveInput(raw);
    const { request } = input;
    const key = commitKeyOf(request);
    const identity = requestIdentity(request);
    const existing = await this.load(key);
    if (existing !== null) return this.replay(existing, identity);

    const conv = this.c.keys.conversation(request.tenantId, request.conversationId);
    const [seqReply] = await this.c.io.commands([['INCR', conv.seq]], 'write');
    const seq = u64FromI64Decimal(seqReply, 'conversation seq');
    const intent: CommitIntent = { key, identity, request, seq, messageId: input.messageId, createdAt: input.createdAt, recipients: input.recipients, publication: null };
    const bytes = encodeCommitIntent(intent);
    const now = this.c.clock.nowMs();
    const call = reserveCommitCall(this.c.keys.commit(key), {
      now,
      identity,
      intent: bytes,
      messageId: input.messageId,
      createdAt: input.createdAt,
      auxExpiresAt: now + this.c.commitAuxTtlMs,
      graceMs: this.c.physicalGraceMs,
    });
    const reply = ScriptReply.of(await this.c.io.script(call, 'write'), 'reserve');
    if (reply.code === ScriptCode.OK) return { snapshot: snapshotOf('RESERVED', bytes), created: true };
    if (reply.code === ScriptCode.ALREADY) return { snapshot: snapshotOf(reply.buf(1), reply.buf(2)), created: false };
    throw errorForCode(reply.code, 'reserve: the commit key holds another request');
  }

  private replay(existing: StoredCommit, identity: Uint8Array): ReserveResult {
    if (!bytesEqual(existing.identity, identity)) throw new ConflictError('reserve: the commit key holds another request');
    return { snapshot: { intent: existing.intent, state: existing.state }, created: false };
  }

  async loadForRequest(request: SendRequest): Promise<CommitSnapshot | null> {
    validateSendRequest(request);
    const existing = await this.load(commitKeyOf(request));
    if (existing === null) return null;
    if (!bytesEqual(existing.identity, requestIdentity(request))) throw new ConflictError('the commit key holds another request');
    return { intent: existing.intent, state: existing.state };
  }

  async putRecord(intent: CommitIntent, record: MessageRecord): Promise<CommitSnapshot> {
    for (let attempt = 0; attempt < CAS_RETRIES; attempt++) {
      const stored = await this.load(intent.key);
      if (stored === null) throw new NotFoundError('putRecord: no commit under this key');
      if (!intentsEqual(stored.intent, intent, true)) throw new ConflictError('putRecord: intent differs from the stored intent');
      const expected = recordFromIntent(stored.intent);
      if (!recordsEqual(expected, record)) throw new ConflictError('putRecord: record is not recordFromIntent(intent)');
      if (hasReached(stored.state, 'RECORDED')) return { intent: stored.intent, state: stored.state };

      await this.writeRecord(expected);
      const reply = ScriptReply.of(await this.c.io.script(markRecordedCall(this.c.keys.commit(intent.key), this.c.clock.nowMs(), stored.intentBytes), 'write'), 'putRecord');
      if (reply.code === ScriptCode.CAS_LOST) continue;
      if (reply.code < 0) throw errorForCode(reply.code, 'putRecord');
      // OK: the script moved exactly the intent bytes read (guard), so the decoded one is current.
      return reply.code === ScriptCode.OK ? { intent: stored.intent, state: 'RECORDED' } : snapshotOf(reply.buf(1), reply.buf(2));
    }
    throw new UnavailableError('putRecord: the commit kept changing under concurrent writers');
  }

  /** Record + index row (conversation tag); an Ephemeral message is registered for history GC before and after. */
  private async writeRecord(r: MessageRecord): Promise<void> {
    const conv = this.c.keys.conversation(r.tenantId, r.conversationId);
    const expiresAt = r.retention.kind === 'ephemeral' ? r.createdAt + BigInt(r.retention.ttlSeconds) * 1000n : null;
    const register = async (): Promise<void> => {
      if (expiresAt !== null) await this.c.io.commands([['ZADD', conv.registry, 'LT', expiresAt.toString(), conv.member]], 'write');
    };
    await register();
    const call = putRecordCall(conv, { seq: r.seq, record: encodeMessageRecord(r), expiresAt, countable: isCountable(r.kind, r.control), senderId: r.senderId, graceMs: this.c.physicalGraceMs });
    const reply = ScriptReply.of(await this.c.io.script(call, 'write'), 'putRecord');
    if (reply.code !== ScriptCode.OK) throw errorForCode(reply.code, 'putRecord: another record holds this seq');
    await register();
  }

  async markOutboxPublished(key: CommitKey, messageId: Id128, publication: Publication): Promise<CommitSnapshot> {
    for (let attempt = 0; attempt < CAS_RETRIES; attempt++) {
      const stored = await this.load(key);
      if (stored === null) throw new NotFoundError('markOutboxPublished: no commit under this key');
      if (stored.intent.messageId !== messageId) throw new ConflictError('markOutboxPublished: another message id');
      if (hasReached(stored.state, 'OUTBOXED')) return { intent: stored.intent, state: stored.state };
      if (stored.state !== 'RECORDED') throw new InvalidStateError(`markOutboxPublished: commit is ${stored.state}`);
      const next = encodeCommitIntent({ ...stored.intent, publication });
      const call = markOutboxedCall(this.c.keys.commit(key), this.c.clock.nowMs(), messageId, stored.intentBytes, next);
      const reply = ScriptReply.of(await this.c.io.script(call, 'write'), 'markOutboxPublished');
      if (reply.code === ScriptCode.CAS_LOST) continue;
      if (reply.code < 0) throw errorForCode(reply.code, 'markOutboxPublished');
      return reply.code === ScriptCode.OK ? { intent: { ...stored.intent, publication }, state: 'OUTBOXED' } : snapshotOf(reply.buf(1), reply.buf(2));
    }
    throw new UnavailableError('markOutboxPublished: the commit kept changing under concurrent writers');
  }

  async markCommitted(key: CommitKey): Promise<CommitSnapshot> {
    const reply = ScriptReply.of(await this.c.io.script(markCommittedCall(this.c.keys.commit(key), this.c.clock.nowMs()), 'write'), 'markCommitted');
    if (reply.code === ScriptCode.OK || reply.code === ScriptCode.ALREADY) return snapshotOf(reply.buf(1), reply.buf(2));
    if (reply.code === ScriptCode.INVALID_STATE) throw new InvalidStateError(`markCommitted: commit is ${reply.str(1)}`);
    throw errorForCode(reply.code, 'markCommitted: no commit under this key');
  }
}
