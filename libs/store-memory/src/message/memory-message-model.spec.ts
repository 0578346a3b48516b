import { COMMIT_AUX_TTL_MS, CodecError, CorruptEntryError, UnavailableError, commitKeyString, recordFromIntent } from '@qim/store-core';
import { ManualClock } from '@qim/store-core/testing';
import type { Id128, SendRequest } from '@qim/store-core';
import { randomBytes } from 'node:crypto';
import { MEMORY_CLOCK_START } from '../testing/memory-harnesses';
import { MemoryMessageBackend } from './memory-message-backend';
import { MemoryMessageStore } from './memory-message-store';

// Memory-only behaviour the contract leaves to each backend: exact housekeeping counts, the
// cause of a CorruptEntryError, shared backends, configuration checks and closing.

const id = (): Id128 => randomBytes(16).toString('hex') as Id128;
const HOUR = 3_600_000n;

function request(tenantId: Id128, conversationId: Id128, over: Partial<SendRequest> = {}): SendRequest {
  return {
    tenantId,
    senderId: id(),
    clientMessageId: id(),
    conversationId,
    kind: 'normal',
    control: false,
    contentType: 'text/plain',
    body: Buffer.from('hi'),
    retention: { kind: 'default' },
    ...over,
  };
}

describe('MemoryMessageStore model', () => {
  const setup = () => {
    const clock = new ManualClock(MEMORY_CLOCK_START);
    const backend = new MemoryMessageBackend();
    return { clock, backend, store: new MemoryMessageStore({ clock, backend }), tenant: id(), conv: id() };
  };

  it('keeps auxiliary commit facts for 2 h by default', () => {
    expect(COMMIT_AUX_TTL_MS).toBe(2n * HOUR);
    expect(setup().store.commitAuxTtlMs).toBe(COMMIT_AUX_TTL_MS);
  });

  it(
    'gcCommittedAuxiliary physically drops expired commit rows with their recovery rows and seq claims, ' + 'bounded and counted per commit, never live ones',
    async () => {
      const { clock, backend, store, tenant, conv } = setup();
      for (let i = 0; i < 3; i++) await store.reserve({ request: request(tenant, conv), messageId: id(), createdAt: clock.nowMs(), recipients: [] });
      expect(await store.gcCommittedAuxiliary(clock.nowMs() + 3n * HOUR, 100)).toEqual({ examined: 0, reclaimed: 0, more: false });
      clock.advance(2n * HOUR);
      expect(await store.gcCommittedAuxiliary(clock.nowMs(), 2)).toEqual({ examined: 2, reclaimed: 2, more: true });
      expect(await store.gcCommittedAuxiliary(clock.nowMs(), 100)).toEqual({ examined: 1, reclaimed: 1, more: false });
      expect(await store.gcCommittedAuxiliary(clock.nowMs(), 100)).toEqual({ examined: 0, reclaimed: 0, more: false });
      expect([backend.commits, backend.recovery, backend.seqClaims].map((t) => t.sweep(clock.nowMs() + 3n * HOUR, 100).dropped)).toEqual([0, 0, 0]);
    },
  );

  it('gcExpiredHistory drops expired ephemeral records and their index rows only, counted per message', async () => {
    const { clock, store, tenant, conv } = setup();
    for (const retention of [{ kind: 'ephemeral', ttlSeconds: 1 }, { kind: 'default' }, { kind: 'ephemeral', ttlSeconds: 1 }] as const) {
      const { snapshot } = await store.reserve({ request: request(tenant, conv, { retention }), messageId: id(), createdAt: clock.nowMs(), recipients: [] });
      await store.putRecord(snapshot.intent, recordFromIntent(snapshot.intent));
    }
    clock.advance(1_000n);
    expect(await store.gcExpiredHistory(clock.nowMs(), 100)).toEqual({ examined: 2, reclaimed: 2, more: false });
    const [summary] = await store.conversationSummaries({ tenantId: tenant, userId: id() }, [{ conversationId: conv, readSeq: 0n }]);
    expect([summary!.headSeq, summary!.unread]).toEqual([2n, 1]);
  });

  it('an undecodable commit row is CorruptEntryError caused by the CodecError', async () => {
    const { clock, backend, store, tenant, conv } = setup();
    const { snapshot } = await store.reserve({ request: request(tenant, conv), messageId: id(), createdAt: clock.nowMs(), recipients: [] });
    const ks = commitKeyString(snapshot.intent.key);
    const row = backend.commits.get(ks, clock.nowMs())!;
    backend.commits.damage(ks, { ...row, intent: row.intent.subarray(0, row.intent.length - 1) });
    const err = await store.loadCommit(snapshot.intent.key).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CorruptEntryError);
    expect((err as CorruptEntryError).cause).toBeInstanceOf(CodecError);
  });

  it('an identity column that disagrees with the intent blob is CorruptEntryError', async () => {
    const { clock, backend, store, tenant, conv } = setup();
    const { snapshot } = await store.reserve({ request: request(tenant, conv), messageId: id(), createdAt: clock.nowMs(), recipients: [] });
    const ks = commitKeyString(snapshot.intent.key);
    backend.commits.damage(ks, { ...backend.commits.get(ks, clock.nowMs())!, identity: Buffer.alloc(32) });
    await expect(store.loadCommit(snapshot.intent.key)).rejects.toBeInstanceOf(CorruptEntryError);
  });

  it('two stores on one backend are two writers of one keyspace', async () => {
    const { clock, backend, store, tenant, conv } = setup();
    const other = new MemoryMessageStore({ clock, backend });
    const req = request(tenant, conv);
    const first = await store.reserve({ request: req, messageId: id(), createdAt: clock.nowMs(), recipients: [] });
    const second = await other.reserve({ request: req, messageId: id(), createdAt: clock.nowMs(), recipients: [] });
    expect(second).toEqual({ snapshot: first.snapshot, created: false });
  });

  it('a closed store answers UnavailableError', async () => {
    const { store } = setup();
    await store.close();
    await expect(store.loadCommitForRequest(request(id(), id()))).rejects.toBeInstanceOf(UnavailableError);
  });

  it('a closed store rejects every port method with UnavailableError before looking at its arguments', async () => {
    const { store } = setup();
    await store.close();
    const x = undefined as never;
    const calls: (() => Promise<unknown>)[] = [
      () => store.reserve(x),
      () => store.putRecord(x, x),
      () => store.markOutboxPublished(x, x, x),
      () => store.markCommitted(x),
      () => store.markPublishedAndCommitted(x, x),
      () => store.loadCommit(x),
      () => store.loadCommitForRequest(x),
      () => store.scanRecoverableCommits(x, x),
      () => store.gcCommittedAuxiliary(x, x),
      () => store.gcExpiredHistory(x, x),
      () => store.historyPage(x, x, x, x),
      () => store.conversationSummaries(x, x),
    ];
    for (const call of calls) await expect(call()).rejects.toThrow(new UnavailableError('the MemoryMessageStore is closed'));
  });
});
