import { CodecError, CorruptEntryError, DAY_MS, InvalidInputError, composeMailboxSeq, epochStartSeq } from '@qim/store-core';
import { ManualClock } from '@qim/store-core/testing';
import type { Id128 } from '@qim/store-core';
import { randomBytes } from 'node:crypto';
import { MEMORY_CLOCK_START } from '../testing/memory-harnesses';
import { MemoryMailboxBackend } from './memory-mailbox-backend';
import { MemoryMailboxStore } from './memory-mailbox-store';

// Memory-only behaviour the contract leaves to each backend: configuration checks and the cause of
// a CorruptEntryError.

const id = (): Id128 => randomBytes(16).toString('hex') as Id128;

describe('MemoryMailboxStore model', () => {
  const gc = { entryRetentionMs: 7n * DAY_MS, dispatchDedupeMs: 8n * DAY_MS };

  it('refuses a shard or epoch outside 0…65535', () => {
    const clock = new ManualClock(MEMORY_CLOCK_START);
    expect(() => new MemoryMailboxStore({ shardEpoch: { shard: 65_536, epoch: 0 }, gc, clock })).toThrow(InvalidInputError);
    expect(() => new MemoryMailboxStore({ shardEpoch: { shard: 0, epoch: -1 }, gc, clock })).toThrow(InvalidInputError);
  });

  it('a damaged ledger blob or entry is CorruptEntryError caused by the CodecError', async () => {
    const clock = new ManualClock(MEMORY_CLOCK_START);
    const backend = new MemoryMailboxBackend();
    const store = new MemoryMailboxStore({ shardEpoch: { shard: 1, epoch: 2 }, gc, clock, backend });
    const [tenant, user] = [id(), id()];
    const seq = composeMailboxSeq(2, 5n);
    await store.appendBatch([
      { tenantId: tenant, userId: user, mailboxSeq: seq, createdAt: clock.nowMs(), events: [{ ordinal: 0, eventId: id(), payload: Buffer.from('x') }] },
    ]);
    const scan = () => store.rangeScan(tenant, user, epochStartSeq(2), composeMailboxSeq(2, 9n), 10).catch((e: unknown) => e);

    backend.entries.damage(`${tenant}:${user}`, seq, Buffer.from('QME\x01'));
    const entryErr = await scan();
    expect(entryErr).toBeInstanceOf(CorruptEntryError);
    expect((entryErr as CorruptEntryError).cause).toBeInstanceOf(CodecError);

    const meta = backend.retention.get(`${tenant}:${user}`, clock.nowMs())!;
    backend.retention.damage(`${tenant}:${user}`, { ...meta, ledger: Buffer.concat([meta.ledger, Buffer.alloc(1)]) });
    const ledgerErr = await scan();
    expect(ledgerErr).toBeInstanceOf(CorruptEntryError);
    expect((ledgerErr as CorruptEntryError).cause).toBeInstanceOf(CodecError);
  });
});
