import { createHash } from 'node:crypto';
import { InvalidInputError, id128ToBytes } from '@qim/store-core';
import type { CommitKey, Id128 } from '@qim/store-core';
import { u64ToHex16 } from '../redis/hex64';

/**
 * The one place Redis keys are built. Every key is `<namespace>:{<tag>}:<suffix>`; everything one
 * atomic script touches shares one hash tag, so each script runs on one cluster slot:
 *
 * | tag | holds | scripts |
 * |---|---|---|
 * | `cs:<0…63>` commit shard (hash of the commit key) | commit hashes, recovery index, aux-GC index | reserve, state moves, recovery scan, aux GC |
 * | `cv:<tenant><conversation>` | seq counter, seq claims (one per commit key), history index, records, ephemeral expiry index | claim-seq, put_record, history page, summary, history GC |
 * | `eg:<0…15>` | conversations holding ephemeral rows (for `gcExpiredHistory`) | plain ZADD/ZREM |
 * | `mu:<tenant><user>` | retention meta, trim, bucket proofs, entries, per-day entry index | append, inspect, range scan, trim |
 * | `sf:<shard>` | the shard frontier of each epoch and the dispatch index (first sight of each dispatch id) | record-dispatches, advance-frontier, frontier GET |
 *
 * Scripts that address a variable number of keys (one record per seq, one proof per day, …) get
 * the tag's prefix (`…{tag}:`) as an argument and append the suffixes documented here, so those
 * keys share the tag as well.
 */
export const COMMIT_SHARDS = 64;
export const EPHEMERAL_REGISTRY_SHARDS = 16;

const NAMESPACE_RE = /^[A-Za-z0-9_.:-]{1,64}$/;

function shardHash(parts: readonly Id128[], domain: string, modulo: number): number {
  const h = createHash('sha256').update(domain);
  for (const p of parts) h.update(id128ToBytes(p));
  return h.digest().readUInt32BE(0) % modulo;
}

export interface CommitKeys {
  readonly shard: number;
  /** 96 hex: tenant, sender, client message id (the index member). */
  readonly member: string;
  readonly hash: string;
  readonly recovery: string;
  readonly aux: string;
  readonly commitPrefix: string;
}

export interface ConversationKeys {
  readonly prefix: string;
  readonly seq: string;
  readonly index: string;
  readonly expiry: string;
  /** Member of the ephemeral registry: tenant + conversation (64 hex). */
  readonly member: string;
  readonly registry: string;
  readonly recordPrefix: string;
  record(seq: bigint): string;
  /** The seq claim of a commit key in this conversation (`commitMember` = `CommitKeys.member`). */
  seqClaim(commitMember: string): string;
}

export interface UserKeys {
  readonly prefix: string;
  readonly meta: string;
  readonly trim: string;
  /** Bucket proofs of one day: hash field `<epoch>` = max seq (16 hex) + expiry (16 hex). */
  proof(day: number): string;
  entry(seq: bigint): string;
  dayIndex(epoch: number, day: number): string;
}

/** Keys of one mailbox shard and epoch (ADR-0022): its frontier and its dispatch index. */
export interface ShardFrontierKeys {
  /** Prefix of the shard's tag; the dispatch-index scripts build `dix:<epoch>:<dispatch id>` from it. */
  readonly prefix: string;
  /** The frontier of the epoch: 16-hex offset. */
  readonly frontier: string;
  /** The dispatch-index row of `d` in the epoch: offset (16 hex) + dedupe expiry (16 hex) + digest (32 bytes). */
  dispatchIndex(d: Id128): string;
}

export class RedisKeys {
  constructor(readonly namespace: string) {
    if (!NAMESPACE_RE.test(namespace)) throw new InvalidInputError(`redis key namespace must match ${NAMESPACE_RE}: ${JSON.stringify(namespace)}`);
  }

  private prefix(tag: string): string {
    return `${this.namespace}:{${tag}}:`;
  }

  /** Pattern matching every key of this namespace (harness clean-up, never used by the stores). */
  get pattern(): string {
    return `${this.namespace}:*`;
  }

  commitShardOf(key: CommitKey): number {
    return shardHash([key.tenantId, key.senderId, key.clientMessageId], 'qim.redis.commit-shard\0', COMMIT_SHARDS);
  }

  commitShard(shard: number): Omit<CommitKeys, 'member' | 'hash'> {
    const p = this.prefix(`cs:${shard}`);
    return { shard, recovery: `${p}recovery`, aux: `${p}aux`, commitPrefix: `${p}commit:` };
  }

  commit(key: CommitKey): CommitKeys {
    const s = this.commitShard(this.commitShardOf(key));
    const member = `${key.tenantId}${key.senderId}${key.clientMessageId}`;
    return { ...s, member, hash: `${s.commitPrefix}${member}` };
  }

  conversation(tenantId: Id128, conversationId: Id128): ConversationKeys {
    const p = this.prefix(`cv:${tenantId}${conversationId}`);
    const registry = (): string => this.ephemeralRegistry(shardHash([tenantId, conversationId], 'qim.redis.ephemeral\0', EPHEMERAL_REGISTRY_SHARDS));
    const recordPrefix = `${p}rec:`;
    return {
      prefix: p,
      seq: `${p}seq`,
      index: `${p}index`,
      expiry: `${p}expiry`,
      member: `${tenantId}${conversationId}`,
      // Computed on use: only Ephemeral writes and history GC need it, and the shard is a SHA-256.
      get registry() {
        return registry();
      },
      recordPrefix,
      record: (seq) => `${recordPrefix}${u64ToHex16(seq, 'seq')}`,
      seqClaim: (commitMember) => `${p}claim:${commitMember}`,
    };
  }

  ephemeralRegistry(k: number): string {
    return `${this.prefix(`eg:${k}`)}conversations`;
  }

  user(tenantId: Id128, userId: Id128): UserKeys {
    const p = this.prefix(`mu:${tenantId}${userId}`);
    return {
      prefix: p,
      meta: `${p}meta`,
      trim: `${p}trim`,
      proof: (day) => `${p}proof:${day}`,
      entry: (seq) => `${p}entry:${u64ToHex16(seq, 'mailbox seq')}`,
      dayIndex: (epoch, day) => `${p}day:${epoch}:${day}`,
    };
  }

  shardFrontier(shard: number, epoch: number): ShardFrontierKeys {
    const p = this.prefix(`sf:${shard}`);
    return {
      prefix: p,
      frontier: `${p}frontier:${epoch}`,
      dispatchIndex: (d) => `${p}dix:${epoch}:${d}`,
    };
  }
}
