import type { ConsumedPage } from '@qim/bus';
import type { DispatchPage, Id128, MailboxStore, MessageRecord, PageReport } from '@qim/store-core';
import { UnavailableError, encodeDispatchRecord } from '@qim/store-core';
import { ManualClock } from '@qim/store-core/testing';
import { memoryMailboxBackend } from '@qim/backends';
import { FrontierBoard } from './frontier-board';
import { MailboxMetrics } from './mailbox-metrics';
import { dispatchRecordsOf } from './router-plan';
import { ShardWorker } from './shard-worker';
import { specMessage } from './testing/spec-message';

const hex = (n: number) => n.toString(16).padStart(32, '0') as Id128;
const T = hex(0xa1);
const alice = hex(1);
const clock = new ManualClock(1_700_000_000_000n);

const message = (seq: bigint): MessageRecord => specMessage(T, alice, seq, clock.nowMs());
const page = (offset: bigint): ConsumedPage => ({
  topic: 'd',
  partition: 0,
  fromOffset: offset,
  toOffset: offset,
  records: [
    {
      topic: 'd',
      partition: 0,
      offset,
      key: null,
      value: encodeDispatchRecord(dispatchRecordsOf({ record: message(offset + 1n), recipients: [alice] }, 1)[0]!),
    },
  ],
});

/**
 * A store whose `applyPage` hangs until the test releases it (a store that stopped answering).
 * `thaw()` releases it and resolves once the hung apply has ended: the test, not the scheduler,
 * decides that the retry comes after it.
 */
async function hangingStore() {
  const backend = memoryMailboxBackend({ epoch: 2, gc: { entryRetentionMs: 86_400_000n, dispatchDedupeMs: 8n * 86_400_000n }, applyConcurrency: 1 }, clock);
  const real: MailboxStore = await backend.storeFor(0);
  let hang = true;
  let release: () => void = () => undefined;
  let calls = 0;
  let hung: Promise<unknown> = Promise.resolve();
  const store = Object.create(real) as MailboxStore;
  store.applyPage = (p: DispatchPage): Promise<PageReport> => {
    calls += 1;
    const applied = (async () => {
      if (hang) await new Promise<void>((r) => (release = r));
      return real.applyPage(p);
    })();
    if (hang) hung = applied.catch(() => undefined);
    return applied;
  };
  const thaw = async (): Promise<void> => {
    hang = false;
    release();
    await hung;
  };
  return { store, calls: () => calls, thaw };
}

async function counter(metrics: MailboxMetrics, labels: Record<string, string>): Promise<number> {
  const v = (await metrics.shardPageFailures.get()).values.find((x) => Object.entries(labels).every(([k, want]) => String(x.labels[k as 'shard']) === want));
  return v?.value ?? 0;
}

/**
 * Issue 28 item 5, the shard worker: a page whose apply does not end within `applyTimeoutMs` fails
 * visibly (typed error, metric, log) instead of holding the partition while heartbeats keep it
 * assigned; the page is retried only once the hung apply has ended (never two applies of a shard at once).
 */
describe('ShardWorker apply bound', () => {
  it('a hung applyPage fails the page with UnavailableError, counted and logged; retries wait for it to end; then the page applies', async () => {
    const { store, calls, thaw } = await hangingStore();
    const metrics = new MailboxMetrics(false);
    const errors: string[] = [];
    const log = { info: () => undefined, warn: () => undefined, error: (_: object, msg: string) => void errors.push(msg) };
    const worker = new ShardWorker({ storeFor: async () => store, board: new FrontierBoard(), metrics, log, applyTimeoutMs: 50 });

    await expect(worker.handlePage(page(0n))).rejects.toBeInstanceOf(UnavailableError);
    expect(await counter(metrics, { shard: '0', code: 'APPLY_TIMEOUT' })).toBe(1);
    expect(errors.filter((m) => m.includes('did not end within 50 ms'))).toHaveLength(1);
    expect(worker.stateOf(0).lastError).toMatch(/did not end within 50 ms/);

    // The consumer retries the page: refused at once while the first apply still runs, not sent again.
    await expect(worker.handlePage(page(0n))).rejects.toThrow(/still running/);
    expect(calls()).toBe(1);

    await thaw();
    await worker.handlePage(page(0n));
    expect((await store.frontier()).offset).toBe(0n);
    expect(worker.stateOf(0)).toMatchObject({ lastError: null, pagesApplied: 1 });
  });
});
