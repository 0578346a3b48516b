import {
  ConflictError,
  CorruptEntryError,
  GcNotSafeError,
  InvalidInputError,
  LANE_COUNT,
  NotFoundError,
  bytesEqual,
  composeMailboxSeq,
  declaredChunk,
  decodeDispatchManifest,
  encodeDispatchManifest,
  isCanonicalManifest,
  isId128,
  manifestDigest,
} from '@qim/store-core';
import type { AppendReport, Clock, DispatchManifest, DispatchProgress, DispatchReceipt, Id128, MailboxEntryInput, ShardEpoch } from '@qim/store-core';
import type { ShardKeys } from '../keys/redis-keys';
import { u64FromHex16 } from '../redis/hex64';
import type { RedisIo } from '../redis/redis-io';
import { ScriptCode, errorForCode } from '../redis/script-codes';
import { ScriptReply } from '../redis/script-reply';
import { beginDispatchCall, chunkCompletedCall, dispatchReadCall, markChunkCompletedCall } from './mailbox-script-args';
import type { RedisMailboxEntries } from './redis-mailbox-entries';

/** Lane numbers are 0 … 63. */
export function checkLane(lane: number): void {
  if (!Number.isInteger(lane) || lane < 0 || lane >= LANE_COUNT) throw new InvalidInputError(`lane must be 0…${LANE_COUNT - 1}: ${lane}`);
}

/** A dispatch's stored progress as `dispatch-read-1.lua` returns it. */
interface StoredDispatch {
  readonly receipt: DispatchReceipt;
  readonly manifest: DispatchManifest;
  readonly maxObservedOffset: bigint;
  readonly lastSeenAt: bigint;
  readonly completedAt: bigint | null;
  readonly gcDeadline: bigint | null;
  readonly gcPhase: 1 | 2 | null;
  /** '<lane>:<chunk>' completion facts. */
  readonly facts: readonly string[];
}

function decodeManifest(bytes: Buffer): DispatchManifest {
  try {
    return decodeDispatchManifest(bytes);
  } catch (e) {
    throw new CorruptEntryError('stored dispatch manifest is undecodable', { cause: e });
  }
}

function optionalHex(b: Buffer, what: string): bigint | null {
  return b.length === 0 ? null : u64FromHex16(b, what);
}

function parsePhase(b: Buffer): 1 | 2 | null {
  const s = b.toString('latin1');
  if (s === '') return null;
  if (s === '1' || s === '2') return Number(s) as 1 | 2;
  throw new CorruptEntryError(`stored GC phase is damaged: ${JSON.stringify(s)}`);
}

/** beginDispatch, appendChunk, chunk completion and dispatchProgress: one shard-tag script each. */
export class RedisDispatchOps {
  constructor(
    private readonly io: RedisIo,
    private readonly keys: ShardKeys,
    private readonly clock: Clock,
    private readonly shardEpoch: ShardEpoch,
    private readonly entries: RedisMailboxEntries,
  ) {}

  async beginDispatch(dispatchId: Id128, offset: bigint, manifest: DispatchManifest, digest: Uint8Array): Promise<DispatchReceipt> {
    if (!isId128(dispatchId) || manifest.dispatchId !== dispatchId) throw new InvalidInputError('beginDispatch: the manifest is not this dispatch’s');
    const mailboxSeq = composeMailboxSeq(this.shardEpoch.epoch, offset);
    const bytes = encodeDispatchManifest(manifest);
    if (!isCanonicalManifest(manifest)) throw new InvalidInputError('beginDispatch: the manifest is not canonical');
    if (!bytesEqual(manifestDigest(manifest), digest)) throw new InvalidInputError('beginDispatch: the digest is not the manifest’s');
    const call = beginDispatchCall(this.keys, {
      now: this.clock.nowMs(),
      offset,
      dispatchId,
      digest,
      manifest: bytes,
      mailboxSeq,
      chunkCounts: manifest.lanes.map((l) => l.chunks.length),
    });
    const reply = ScriptReply.of(await this.io.script(call, 'write'), 'beginDispatch');
    if (reply.code !== ScriptCode.OK) throw errorForCode(reply.code, `beginDispatch ${dispatchId} at ${offset}`);
    return { dispatchId, canonicalOffset: u64FromHex16(reply.buf(1), 'canonical offset'), mailboxSeq: u64FromHex16(reply.buf(2), 'mailbox seq'), digest: reply.buf(3) };
  }

  private async read(dispatchId: Id128): Promise<StoredDispatch | null> {
    const reply = ScriptReply.of(await this.io.script(dispatchReadCall(this.keys, this.clock.nowMs(), dispatchId), 'read'), 'dispatch read');
    if (reply.code === ScriptCode.NOT_FOUND) return null;
    if (reply.code === ScriptCode.GC_NOT_SAFE) throw new GcNotSafeError(`dispatch ${dispatchId} is scheduled for GC`);
    if (reply.code !== ScriptCode.OK) throw errorForCode(reply.code, 'dispatch read');
    const digest = reply.buf(1);
    const receipt = { dispatchId, canonicalOffset: u64FromHex16(reply.buf(3), 'canonical offset'), mailboxSeq: u64FromHex16(reply.buf(4), 'mailbox seq'), digest };
    return {
      receipt,
      manifest: decodeManifest(reply.buf(2)),
      maxObservedOffset: u64FromHex16(reply.buf(5), 'max observed offset'),
      lastSeenAt: u64FromHex16(reply.buf(6), 'last seen'),
      completedAt: optionalHex(reply.buf(7), 'completed at'),
      gcDeadline: optionalHex(reply.buf(8), 'GC deadline'),
      gcPhase: parsePhase(reply.buf(9)),
      facts: reply.rest(10).map((b) => (b as Buffer).toString('latin1')),
    };
  }

  async appendChunk(receipt: DispatchReceipt, lane: number, chunkId: number, entries: readonly MailboxEntryInput[]): Promise<AppendReport> {
    checkLane(lane);
    const stored = await this.read(receipt.dispatchId);
    if (stored === null) throw new NotFoundError(`no dispatch ${receipt.dispatchId}`);
    const r = stored.receipt;
    if (r.canonicalOffset !== receipt.canonicalOffset || r.mailboxSeq !== receipt.mailboxSeq || !bytesEqual(r.digest, receipt.digest)) {
      throw new ConflictError(`receipt of dispatch ${receipt.dispatchId} is not the stored one`);
    }
    const chunk = declaredChunk(stored.manifest, lane, chunkId);
    if (chunk === null) throw new InvalidInputError(`dispatch ${receipt.dispatchId} declares no chunk ${chunkId} in lane ${lane}`);
    const users = entries.map((e) => e.userId).sort();
    if (users.length !== chunk.users.length || users.some((u, i) => u !== chunk.users[i])) {
      throw new InvalidInputError(`chunk ${chunkId} of lane ${lane}: entries must be exactly the chunk's users`);
    }
    for (const e of entries) {
      if (e.tenantId !== stored.manifest.tenantId || e.mailboxSeq !== receipt.mailboxSeq) throw new InvalidInputError('chunk entries must carry the manifest tenant and the receipt seq');
    }
    return this.entries.appendBatch(entries);
  }

  async markChunkCompleted(receipt: DispatchReceipt, lane: number, chunkId: number): Promise<void> {
    checkLane(lane);
    const reply = ScriptReply.of(await this.io.script(markChunkCompletedCall(this.keys, this.clock.nowMs(), receipt, lane, chunkId), 'write'), 'markChunkCompleted');
    if (reply.code < 0) throw errorForCode(reply.code, `markChunkCompleted ${receipt.dispatchId} lane ${lane} chunk ${chunkId}`);
  }

  async chunkCompleted(dispatchId: Id128, lane: number, chunkId: number): Promise<boolean> {
    checkLane(lane);
    const reply = ScriptReply.of(await this.io.script(chunkCompletedCall(this.keys, this.clock.nowMs(), dispatchId, lane, chunkId), 'read'), 'chunkCompleted');
    if (reply.code < 0) throw errorForCode(reply.code, `chunkCompleted ${dispatchId}`);
    return reply.int(1) === 1;
  }

  async dispatchProgress(dispatchId: Id128): Promise<DispatchProgress | null> {
    const s = await this.read(dispatchId);
    if (s === null) return null;
    const { manifest } = s;
    if (manifest.dispatchId !== dispatchId || !bytesEqual(manifestDigest(manifest), s.receipt.digest)) throw new CorruptEntryError(`dispatch ${dispatchId}: manifest and digest disagree`);
    const completedChunks: number[][] = Array.from({ length: LANE_COUNT }, () => []);
    for (const fact of s.facts) {
      const m = /^(\d+):(\d+)$/.exec(fact);
      const lane = Number(m?.[1]);
      const id = Number(m?.[2]);
      if (m === null || lane >= LANE_COUNT || id >= (manifest.lanes[lane]?.chunks.length ?? 0)) {
        throw new CorruptEntryError(`dispatch ${dispatchId} has a completion fact of an undeclared chunk: ${fact}`);
      }
      completedChunks[lane]!.push(id);
    }
    completedChunks.forEach((ids) => ids.sort((a, b) => a - b));
    const complete = completedChunks.every((ids, lane) => ids.length === (manifest.lanes[lane]?.chunks.length ?? 0));
    if (s.completedAt !== null && !complete) throw new CorruptEntryError(`dispatch ${dispatchId} is marked complete with chunks missing`);
    return {
      receipt: s.receipt,
      manifest,
      maxObservedOffset: s.maxObservedOffset,
      lastSeenAt: s.lastSeenAt,
      completedAt: s.completedAt,
      completedChunks,
      gcDeadline: s.gcDeadline,
      gcPhase: s.gcPhase,
    };
  }
}
