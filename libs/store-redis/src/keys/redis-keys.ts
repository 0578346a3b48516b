import { createHash } from 'node:crypto';
import { InvalidInputError, id128ToBytes } from '@qim/store-core';
import type { CommitKey, Id128 } from '@qim/store-core';
import { u64ToHex16 } from '../redis/hex64';

/**
 * The one place Redis keys are built. Every key is `<namespace>:{<tag>}:<suffix>`; everything one
 * atomic script touches shares one hash tag, so each script runs on one cluster slot (per tag: what
 * it holds → the scripts that touch it):
 *
 * - `cs:<0…63>` commit shard (hash of the commit key): commit hashes, recovery index, aux-GC index
 *   → reserve, state moves, recovery scan, aux GC
 * - `cv:<tenant><conversation>`: seq counter, seq claims (one per commit key), history index, records,
 *   ephemeral expiry index → claim-seq, put_record, history page, summary, history GC
 * - `eg:<0…15>`: conversations holding ephemeral rows (for `gcExpiredHistory`) → plain ZADD/ZREM
 * - `mb:<0…255>` mailbox bucket (hash of tenant + user mod 256): per user `u2:<tenant><user>:`:
 *   retention meta, trim, bucket proofs, per-day entry index holding the entries → append (all users
 *   of a bucket in one call), inspect, range scan, trim (one user)
 * - `sf:<shard>`: the shard frontier of each epoch (`mbd-frontier:<epoch>`) and the dispatch index
 *   (first sight of each dispatch id) → record-dispatches, advance-frontier, frontier GET
 * - `writers`: writer-id leases and their HLC floors → lease-acquire, -renew, -reacquire, -release
 * - `cs:<0…63>` (again): recovery claims, beside the commit they claim → recovery-claim
 * - `fence:<n>`: `wait`: the replica-ack fence, a short-lived value SET right before each WAIT
 *   (ADR-0038); `n` picks a slot of the primary waited on → plain SET … PX
 *
 * One key keeps the layout of the builds before this list, so stored memberships stay readable:
 * a conversation's member set is `<namespace>:members:{<tenant>:<conversation>}` (one key, one tag).
 *
 * Scripts that address a variable number of keys (one record per seq, one proof per day, …) get
 * the tag's prefix (`…{tag}:`) as an argument and append the suffixes documented here, so those
 * keys share the tag as well.
 */
export const COMMIT_SHARDS = 64;
export const EPHEMERAL_REGISTRY_SHARDS = 16;
/**
 * Mailbox buckets (tags `mb:<0…255>`): users share a bucket's tag so that one append call carries
 * every user of the bucket a page touches. 256 spreads the mailbox over 256 cluster slots (each
 * bucket holds 1/256 of the mailboxes) while a 1,000-recipient page still needs at most 256 calls
 * (~250, ~4 users each); 64 would cut that to 64 calls but put 1/64 of all mailboxes behind one
 * slot. Part of the stored layout: changing it moves every user's keys.
 */
export const MAILBOX_BUCKETS = 256;

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

/** The one key name of a mailbox bucket's tag that the append script is declared on (never written). */
export interface MailboxBucketKeys {
  readonly bucket: number;
  /** `<ns>:{mb:<bucket>}:bucket`; the script derives the bucket prefix from it. */
  readonly key: string;
}

export interface UserKeys {
  /** The user's bucket (tag `mb:<bucket>`). */
  readonly bucket: number;
  /** tenant + user (64 hex): the user's part of its keys inside the bucket. */
  readonly id: string;
  /** `<ns>:{mb:<bucket>}:u2:<tenant><user>:` (`u2`: the layout with the entries inside the day index). */
  readonly prefix: string;
  readonly meta: string;
  readonly trim: string;
  /** Bucket proofs of one day: zset, member `<epoch>:<expiry (16 hex)>`, score = the max seq's offset part (seq − epoch·2^47). */
  proof(day: number): string;
  /** The entries of one epoch and day: lex zset, member = seq (16 hex) + MailboxEntry bytes. */
  dayIndex(epoch: number, day: number): string;
}

/** A layout the mailbox left behind, named by its frontier key: never written, its presence refuses the shard and epoch. */
export interface OldLayoutFrontier {
  /** `per-user-layout`: users under their own tag `{mu:<tenant><user>}`; `entry-key-layout`: buckets with one key per entry. */
  readonly layout: 'per-user-layout' | 'entry-key-layout';
  readonly key: string;
}

/** Keys of one mailbox shard and epoch (ADR-0022): its frontier and its dispatch index. */
export interface ShardFrontierKeys {
  /** Prefix of the shard's tag; the dispatch-index scripts build `dix:<epoch>:<dispatch id>` from it. */
  readonly prefix: string;
  /** The frontier of the epoch: 16-hex offset (`mbd-frontier:<epoch>`, the day-indexed layout). */
  readonly frontier: string;
  /**
   * The frontier names of the layouts before it, in the order `record-dispatches-v4` checks them:
   * `frontier:<epoch>` (per-user tags), `mb-frontier:<epoch>` (buckets, one key per entry).
   */
  readonly oldLayoutFrontiers: readonly OldLayoutFrontier[];
  /** The dispatch-index row of `d` in the epoch: offset (16 hex) + dedupe expiry (16 hex) + digest (32 bytes). */
  dispatchIndex(d: Id128): string;
}

/** Keys of one writer id (0 … slots−1): its lease and its HLC floor, under the one `writers` tag. */
export interface WriterLeaseKeys {
  /** Holder token, `PX` lease lifetime. */
  readonly lease: string;
  /** HLC floor of the id, decimal u64, no TTL (a successor starts above it). */
  readonly hlcFloor: string;
}

/**
 * Users whose mailbox bucket this process remembers, shared by every `RedisKeys` (the bucket does not
 * depend on the namespace): ≈ 10 MB at the bound, whatever the number of shard stores.
 */
const BUCKET_MEMO_USERS = 65_536;
const bucketMemo = new Map<string, number>();

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

  mailboxBucketOf(tenantId: Id128, userId: Id128): number {
    // Every sync and every applied entry needs it, and a SHA-256 costs ~2 µs: remembered per user
    // (a pure function of the ids; the memo is dropped whole when it reaches its bound).
    const id = `${tenantId}${userId}`;
    let bucket = bucketMemo.get(id);
    if (bucket === undefined) {
      bucket = shardHash([tenantId, userId], 'qim.redis.mailbox-bucket\0', MAILBOX_BUCKETS);
      if (bucketMemo.size >= BUCKET_MEMO_USERS) bucketMemo.clear();
      bucketMemo.set(id, bucket);
    }
    return bucket;
  }

  mailboxBucket(bucket: number): MailboxBucketKeys {
    return { bucket, key: `${this.prefix(`mb:${bucket}`)}bucket` };
  }

  user(tenantId: Id128, userId: Id128): UserKeys {
    const bucket = this.mailboxBucketOf(tenantId, userId);
    const id = `${tenantId}${userId}`;
    const p = `${this.prefix(`mb:${bucket}`)}u2:${id}:`;
    return {
      bucket,
      id,
      prefix: p,
      meta: `${p}meta`,
      trim: `${p}trim`,
      proof: (day) => `${p}proof:${day}`,
      dayIndex: (epoch, day) => `${p}day:${epoch}:${day}`,
    };
  }

  shardFrontier(shard: number, epoch: number): ShardFrontierKeys {
    const p = this.prefix(`sf:${shard}`);
    return {
      prefix: p,
      frontier: `${p}mbd-frontier:${epoch}`,
      oldLayoutFrontiers: [
        { layout: 'per-user-layout', key: `${p}frontier:${epoch}` },
        { layout: 'entry-key-layout', key: `${p}mb-frontier:${epoch}` },
      ],
      dispatchIndex: (d) => `${p}dix:${epoch}:${d}`,
    };
  }

  /** The member set of a conversation (32-hex user ids): the earlier builds' layout, see above. */
  membership(tenantId: Id128, conversationId: Id128): string {
    return `${this.namespace}:members:{${tenantId}:${conversationId}}`;
  }

  writerLease(writerId: number): WriterLeaseKeys {
    if (!Number.isInteger(writerId) || writerId < 0 || writerId > 0xffff)
      throw new InvalidInputError(`writer id must be an integer in [0, 65535]: ${writerId}`);
    const p = this.prefix('writers');
    return { lease: `${p}lease:${writerId}`, hlcFloor: `${p}hlc:${writerId}` };
  }

  /**
   * The replica-ack fence of tag `fence:<n>` (ADR-0038): SET with a short expiry right before a WAIT so
   * that the WAIT covers everything the primary ran before it. `n` (≥ 0) only picks the slot.
   */
  replicaFence(n: number): string {
    if (!Number.isInteger(n) || n < 0) throw new InvalidInputError(`replica fence number must be an integer ≥ 0: ${n}`);
    return `${this.prefix(`fence:${n}`)}wait`;
  }

  /** A writer's recovery claim of one commit: in the commit's shard tag, beside the commit. */
  recoveryClaim(key: CommitKey): string {
    const c = this.commit(key);
    return `${this.prefix(`cs:${c.shard}`)}recovery-claim:${c.member}`;
  }
}
