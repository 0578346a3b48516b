import { randomBytes } from 'node:crypto';
import { DAY_MS, composeMailboxSeq, epochStartSeq } from '@qim/store-core';
import { ManualClock } from '@qim/store-core/testing';
import type { DispatchPage, DispatchRecord, Id128, MailboxEntryInput, MailboxGcConfig, ShardEpoch } from '@qim/store-core';
import type { Redis } from 'ioredis';
import type { MailboxFaults } from '../mailbox/redis-mailbox-faults';
import { RedisMailboxStore } from '../mailbox/redis-mailbox-store';
import { dropNamespace, testClient, testNamespace } from './redis-test-env';

export const rid = (): Id128 => randomBytes(16).toString('hex') as Id128;

/** Default retention of these specs: a week of entries, a day of duplicate memory. */
export const SPEC_GC: MailboxGcConfig = { entryRetentionMs: 7n * DAY_MS, dispatchDedupeMs: DAY_MS };

/**
 * The Redis mailbox specs' world: one namespace, one ManualClock (from the real time), an admin
 * client for direct reads, and stores of one random shard and epoch opened on demand.
 */
export class RedisMailboxFixture {
  readonly admin: Redis = testClient();
  readonly namespace = testNamespace();
  readonly clock = new ManualClock(BigInt(Date.now()));
  readonly shardEpoch: ShardEpoch = { shard: 1 + Math.floor(Math.random() * 60_000), epoch: 1 + Math.floor(Math.random() * 60_000) };
  readonly tenantId = rid();
  private readonly stores: RedisMailboxStore[] = [];

  open(gc: MailboxGcConfig = SPEC_GC, faults?: MailboxFaults, applyConcurrency?: number, plainPath?: boolean): RedisMailboxStore {
    const store = new RedisMailboxStore({
      redis: testClient(),
      namespace: this.namespace,
      clock: this.clock,
      shardEpoch: this.shardEpoch,
      gc,
      faults,
      applyConcurrency,
      plainPath,
    });
    this.stores.push(store);
    return store;
  }

  /** A dispatch of this shard to `recipients` (sorted here), created now unless told otherwise. */
  record(recipients: readonly Id128[], patch: Partial<DispatchRecord> = {}): DispatchRecord {
    return {
      dispatchId: rid(),
      tenantId: this.tenantId,
      shard: this.shardEpoch.shard,
      messageId: rid(),
      conversationId: rid(),
      seq: 1n,
      createdAt: this.clock.nowMs(),
      recipients: [...recipients].sort(),
      events: [{ ordinal: 0, eventId: rid(), payload: Buffer.from('hello') }],
      ...patch,
    };
  }

  /** A mailbox entry of `user` at the seq of `offset`, with one small event. */
  entry(user: Id128, offset: bigint, createdAt: bigint): MailboxEntryInput {
    return {
      tenantId: this.tenantId,
      userId: user,
      mailboxSeq: this.seq(offset),
      createdAt,
      events: [{ ordinal: 0, eventId: rid(), payload: Buffer.from(`at ${offset}`) }],
    };
  }

  seq(offset: bigint): bigint {
    return composeMailboxSeq(this.shardEpoch.epoch, offset);
  }

  get start(): bigint {
    return epochStartSeq(this.shardEpoch.epoch);
  }

  get top(): bigint {
    return composeMailboxSeq(this.shardEpoch.epoch, (1n << 47n) - 2n);
  }

  async close(): Promise<void> {
    await Promise.all(this.stores.map((s) => s.close()));
    await dropNamespace(this.admin, this.namespace);
    await this.admin.quit();
  }
}

/** A page `[from, to]` with the given records at their offsets. */
export function pageOf(fromOffset: bigint, toOffset: bigint, records: readonly (readonly [bigint, DispatchRecord])[]): DispatchPage {
  return { fromOffset, toOffset, records: records.map(([offset, record]) => ({ offset, record })) };
}
