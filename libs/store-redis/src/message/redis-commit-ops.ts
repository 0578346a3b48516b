import {
  COMMIT_STEP_TEXTS,
  CorruptEntryError,
  UnavailableError,
  assertRecordOfIntent,
  assertSameRequest,
  commitConflict,
  commitKeyOf,
  commitKeyString,
  decideMarkCommitted,
  decideMarkOutboxPublished,
  decideMarkPublishedAndCommitted,
  decidePutRecord,
  decideSeqClaim,
  encodeCommitIntent,
  encodeCommitIntentForms,
  encodeSendRequest,
  identityOfRequestBytes,
  publishIntentBytes,
  requestIdentity,
  reservedIntentOf,
  validateReserveInput,
  validateSendRequest,
} from '@qim/store-core';
import type {
  Clock,
  CommitIntent,
  CommitKey,
  CommitSnapshot,
  Id128,
  MessageCommitSteps,
  MessageRecord,
  Publication,
  ReserveInput,
  ReserveResult,
  SendRequest,
  SeqClaim,
  StepDecision,
} from '@qim/store-core';
import type { CommitKeys, ConversationKeys, RedisKeys } from '../keys/redis-keys';
import type { RedisIo, ScriptCall } from '../redis/redis-io';
import { ScriptCode } from '../redis/script-codes';
import { ScriptReply } from '../redis/script-reply';
import { claimCommitCall, claimSeqCall, markCommittedCall, markOutboxedCall, markPublishedCommittedCall, markRecordedCall } from './message-script-args';
import { registerEphemeral, writeRecord } from './record-writes';
import { packIds, parseSeqClaim, unpackIds } from './seq-claim-value';
import type { RedisMessageFaults } from './redis-message-faults';
import { CLAIMED, COMMIT_FIELDS, parseStoredCommit, snapshotOf } from './stored-commit';

/** Times a step re-reads and decides again after its conditional write found the commit changed. */
const CAS_RETRIES = 8;
/** Commit / conversation key sets remembered (about one per commit in flight); a cache is emptied when full. */
const KEY_CACHE_SIZE = 4096;

export interface CommitOpsConfig {
  readonly io: RedisIo;
  readonly keys: RedisKeys;
  readonly clock: Clock;
  readonly commitAuxTtlMs: bigint;
  readonly physicalGraceMs: bigint;
  readonly faults?: RedisMessageFaults | undefined;
}

/** A commit as loaded: its snapshot, and the stored intent bytes when it holds them (RECORDED on). */
export interface LoadedCommit {
  readonly snapshot: CommitSnapshot;
  readonly intentBytes: Buffer | null;
}

/**
 * The commit lifecycle over Redis, in 4 round trips on the happy path, every script on one hash tag:
 *
 * 1. reserve — one write: `claim-commit` (commit shard: CLAIMED with request, recipients and the
 *    recovery member, or the live commit) and `claim-seq` (conversation: the seq claim — adopt or
 *    INCR — in one atomic step). CLAIMED + its seq claim is the RESERVED commit.
 * 2. putRecord — `put-record` (conversation: record + index, only if the seq claim is the intent's),
 * 3. then `mark-recorded` (commit shard: the complete intent, RECORDED).
 * 4. markPublishedAndCommitted — `mark-published-committed` (RECORDED → COMMITTED with publication).
 *
 * Each script applies its write only in the state the happy path expects; any other answer is
 * decided by the store-core step functions on the stored commit (read again when needed), so the
 * decisions and their error texts are the same as every other backend's. Crash-safe order: the
 * recovery member exists before any seq is spent, the record exists before RECORDED.
 */
export class RedisCommitOps implements MessageCommitSteps {
  /**
   * The intent bytes this store moved to RECORDED, by the intent object it answered with: the
   * committer hands that object to `markPublishedAndCommitted`, which then needs no second encoding.
   * The script compares these bytes with the stored ones, so they can only ever publish the stored intent.
   */
  private readonly recorded = new WeakMap<CommitIntent, Buffer>();

  /** Commit keys by `commitKeyString` (the shard is a SHA-256; one commit asks for them 4 times). */
  private readonly keyCache = new Map<string, CommitKeys>();

  /** Conversation keys by tenant + conversation (reserve and putRecord of a commit share them). */
  private readonly conversationCache = new Map<string, ConversationKeys>();

  constructor(private readonly c: CommitOpsConfig) {}

  /**
   * Commit keys by the key object a commit carries from step to step (its intent's `key`): a commit's
   * later steps find them without deriving the key string again.
   */
  private readonly keysByObject = new WeakMap<CommitKey, CommitKeys>();

  private commitKeys(key: CommitKey): CommitKeys {
    const carried = this.keysByObject.get(key);
    if (carried !== undefined) return carried;
    const keys = this.commitKeysById(key);
    this.keysByObject.set(key, keys);
    return keys;
  }

  private commitKeysById(key: CommitKey): CommitKeys {
    const id = commitKeyString(key);
    let keys = this.keyCache.get(id);
    if (keys === undefined) {
      if (this.keyCache.size >= KEY_CACHE_SIZE) this.keyCache.clear();
      keys = this.c.keys.commit(key);
      this.keyCache.set(id, keys);
    }
    return keys;
  }

  private conversationKeys(tenantId: Id128, conversationId: Id128): ConversationKeys {
    const id = `${tenantId}${conversationId}`;
    let keys = this.conversationCache.get(id);
    if (keys === undefined) {
      if (this.conversationCache.size >= KEY_CACHE_SIZE) this.conversationCache.clear();
      keys = this.c.keys.conversation(tenantId, conversationId);
      this.conversationCache.set(id, keys);
    }
    return keys;
  }

  /** The live commit; a CLAIMED one is RESERVED when its seq claim is live and its own, else null. */
  async load(key: CommitKey): Promise<LoadedCommit | null> {
    const [reply] = await this.c.io.commands([['HMGET', this.commitKeys(key).hash, ...COMMIT_FIELDS]], 'read');
    const now = this.c.clock.nowMs();
    const stored = parseStoredCommit(reply, now);
    if (stored === null) return null;
    if (stored.kind === 'intent') return { snapshot: { intent: stored.intent, state: stored.state }, intentBytes: stored.intentBytes };
    const conv = this.conversationKeys(stored.request.tenantId, stored.request.conversationId);
    const [raw] = await this.c.io.commands([['GET', conv.seqClaim(this.commitKeys(key).member)]], 'read');
    if (raw === null) return null;
    const claim = parseSeqClaim(raw as Buffer);
    if (claim.expiresAt <= now || !Buffer.from(claim.identity).equals(stored.identity)) return null;
    return { snapshot: { intent: reservedIntentOf(stored.request, stored.identity, stored.recipients, claim), state: 'RESERVED' }, intentBytes: null };
  }

  async loadCommit(key: CommitKey): Promise<CommitSnapshot | null> {
    return (await this.load(key))?.snapshot ?? null;
  }

  async loadCommitForRequest(request: SendRequest): Promise<CommitSnapshot | null> {
    validateSendRequest(request);
    const snapshot = await this.loadCommit(commitKeyOf(request));
    if (snapshot !== null) assertSameRequest('loadCommitForRequest', snapshot.intent.identity, requestIdentity(request));
    return snapshot;
  }

  async reserve(raw: ReserveInput): Promise<ReserveResult> {
    const input = validateReserveInput(raw);
    const { request } = input;
    const key = commitKeyOf(request);
    const requestBytes = encodeSendRequest(request);
    const identity = identityOfRequestBytes(request, requestBytes);
    const k = this.commitKeys(key);
    const now = this.c.clock.nowMs();
    const auxExpiresAt = now + this.c.commitAuxTtlMs;
    const graceMs = this.c.physicalGraceMs;
    const calls = [
      claimCommitCall(k, { now, identity, request: requestBytes, recipients: packIds(input.recipients), createdAt: input.createdAt, auxExpiresAt, graceMs }),
      claimSeqCall(this.conversationKeys(request.tenantId, request.conversationId), k.member, {
        now,
        identity,
        messageId: input.messageId,
        createdAt: input.createdAt,
        auxExpiresAt,
        graceMs,
      }),
    ] as const;
    const [commitRaw, seqRaw] = this.c.faults === undefined ? await this.c.io.scripts(calls, 'write') : await this.reserveStepwise(calls, this.c.faults);
    const commit = ScriptReply.of(commitRaw, 'reserve');
    if (commit.code === ScriptCode.OK) {
      await this.c.faults?.at('reserve:after-commit');
      return {
        snapshot: { intent: reservedIntentOf(request, identity, input.recipients, seqClaimOf(seqRaw, identity), key), state: 'RESERVED' },
        created: true,
      };
    }
    assertSameRequest('reserve', commit.buf(1), identity);
    if (commit.str(2) !== CLAIMED) return { snapshot: snapshotOf(commit.buf(2), commit.bufOrNull(3)), created: false };
    const recipients = unpackIds(commit.buf(4));
    return { snapshot: { intent: reservedIntentOf(request, identity, recipients, seqClaimOf(seqRaw, identity), key), state: 'RESERVED' }, created: false };
  }

  /** The two reserve scripts one after the other, with the crash seam between them (tests only). */
  private async reserveStepwise(calls: readonly [ScriptCall, ScriptCall], faults: RedisMessageFaults): Promise<unknown[]> {
    const commitRaw = await this.c.io.script(calls[0], 'write');
    await faults.at('reserve:after-recovery-entry');
    const seqRaw = await this.c.io.script(calls[1], 'write');
    await faults.at('reserve:after-seq');
    return [commitRaw, seqRaw];
  }

  /**
   * `put-record` + `mark-recorded`, then (replica acks on, ADR-0038) WAIT on the primaries of the
   * conversation and the commit hash, whatever the answer: the record and its seq must be on a
   * replica before the committer publishes and acknowledges, or a promoted replica could hand the
   * seq to another message. A retry after a failed WAIT finds RECORDED and waits again.
   */
  async putRecord(intent: CommitIntent, record: MessageRecord): Promise<CommitSnapshot> {
    const snapshot = await this.putRecordOnce(intent, record);
    const conv = this.conversationKeys(record.tenantId, record.conversationId);
    await this.c.io.replicated([conv.seq, this.commitKeys(intent.key).hash], 'putRecord');
    return snapshot;
  }

  private async putRecordOnce(intent: CommitIntent, record: MessageRecord): Promise<CommitSnapshot> {
    assertRecordOfIntent(intent, record);
    // Checked before anything is written: the record below is built from this intent's request.
    const forms = encodeCommitIntentForms(intent);
    if (forms === null) return this.refuse('putRecord', intent.key, (s) => decidePutRecord(s, intent, record));
    const reserved = intent.publication === null ? intent : { ...intent, publication: null };
    const k = this.commitKeys(intent.key);
    const conv = this.conversationKeys(record.tenantId, record.conversationId);
    for (let attempt = 0; attempt < CAS_RETRIES; attempt++) {
      if (await writeRecord(this.c, conv, k.member, intent, record)) {
        await this.c.faults?.at('put-record:after-record');
        await this.c.faults?.at('put-record:after-index');
        const call = markRecordedCall(k, this.c.clock.nowMs(), intent.identity, packIds(intent.recipients), forms.unpublished);
        const [moved] = await Promise.all([this.c.io.script(call, 'write'), registerEphemeral(this.c, conv, record)]);
        const reply = ScriptReply.of(moved, 'putRecord');
        if (reply.code === ScriptCode.OK) {
          this.recorded.set(reserved, forms.unpublished);
          return { intent: reserved, state: 'RECORDED' };
        }
        const d = decidePutRecord(await this.current(intent.key, reply), intent, record);
        if (d.action === 'answer') return d.snapshot;
      } else {
        const d = decidePutRecord(await this.current(intent.key, null), intent, record);
        if (d.action === 'answer') return d.snapshot;
      }
    }
    throw new UnavailableError('putRecord: the commit kept changing under concurrent writers');
  }

  async markOutboxPublished(key: CommitKey, messageId: Id128, publication: Publication): Promise<CommitSnapshot> {
    for (let attempt = 0; attempt < CAS_RETRIES; attempt++) {
      const loaded = await this.load(key);
      const d = decideMarkOutboxPublished(loaded?.snapshot ?? null, messageId);
      if (d.action === 'answer') return d.snapshot;
      const next = { ...loaded!.snapshot.intent, publication };
      const call = markOutboxedCall(this.commitKeys(key), this.c.clock.nowMs(), loaded!.intentBytes!, encodeCommitIntent(next));
      if (ScriptReply.of(await this.c.io.script(call, 'write'), 'markOutboxPublished').code === ScriptCode.OK) return { intent: next, state: 'OUTBOXED' };
    }
    throw new UnavailableError('markOutboxPublished: the commit kept changing under concurrent writers');
  }

  async markCommitted(key: CommitKey): Promise<CommitSnapshot> {
    for (let attempt = 0; attempt < CAS_RETRIES; attempt++) {
      const reply = ScriptReply.of(await this.c.io.script(markCommittedCall(this.commitKeys(key), this.c.clock.nowMs()), 'write'), 'markCommitted');
      if (reply.code === ScriptCode.OK) return snapshotOf('COMMITTED', reply.buf(1));
      const d = decideMarkCommitted(await this.current(key, reply));
      if (d.action === 'answer') return d.snapshot;
    }
    throw new UnavailableError('markCommitted: the commit kept changing under concurrent writers');
  }

  async markPublishedAndCommitted(intent: CommitIntent, publication: Publication): Promise<CommitSnapshot> {
    const recorded = this.recorded.get(intent);
    const forms =
      recorded === undefined ? encodeCommitIntentForms(intent, publication) : { unpublished: recorded, published: publishIntentBytes(recorded, publication) };
    if (forms === null) return this.refuse('markPublishedAndCommitted', intent.key, (s) => decideMarkPublishedAndCommitted(s, intent));
    const next = { ...intent, publication };
    for (let attempt = 0; attempt < CAS_RETRIES; attempt++) {
      const call = markPublishedCommittedCall(this.commitKeys(intent.key), this.c.clock.nowMs(), forms.unpublished, forms.published!);
      const reply = ScriptReply.of(await this.c.io.script(call, 'write'), 'markPublishedAndCommitted');
      if (reply.code === ScriptCode.OK) return { intent: next, state: 'COMMITTED' };
      const current = await this.current(intent.key, reply);
      const d = decideMarkPublishedAndCommitted(current, intent);
      if (d.action === 'answer') return d.snapshot;
      // OUTBOXED keeps its first publication: only the commit mark is left.
      if (current!.state === 'OUTBOXED') return this.markCommitted(intent.key);
    }
    throw new UnavailableError('markPublishedAndCommitted: the commit kept changing under concurrent writers');
  }

  /**
   * An intent whose key or identity is not its request's equals no stored intent: the decision on
   * the stored commit refuses it (`NotFoundError` for an unknown key, else `ConflictError`).
   */
  private async refuse(op: 'putRecord' | 'markPublishedAndCommitted', key: CommitKey, decide: (s: CommitSnapshot | null) => StepDecision): Promise<never> {
    decide(await this.current(key, null));
    throw commitConflict(op, COMMIT_STEP_TEXTS.otherIntent);
  }

  /**
   * The stored commit a step decides on after its commit-hash script did not apply: the state and
   * intent the script answered with, nothing when it found no live commit, else (CLAIMED, or no
   * script answer) the commit read again.
   */
  private async current(key: CommitKey, reply: ScriptReply | null): Promise<CommitSnapshot | null> {
    if (reply?.code === ScriptCode.NOT_FOUND) return null;
    if (reply?.code === ScriptCode.ALREADY && reply.str(1) !== CLAIMED) return snapshotOf(reply.buf(1), reply.bufOrNull(2));
    return (await this.load(key))?.snapshot ?? null;
  }
}

/** The seq claim `claim-seq` answered: allocated or adopted, or the claim rule's refusal. */
function seqClaimOf(raw: unknown, identity: Uint8Array): SeqClaim {
  const reply = ScriptReply.of(raw, 'reserve');
  if (reply.code === ScriptCode.CORRUPT) throw new CorruptEntryError('reserve: the stored seq claim is malformed');
  const claim = parseSeqClaim(reply.buf(1));
  if (reply.code === ScriptCode.CONFLICT) decideSeqClaim(claim, identity);
  return claim;
}
