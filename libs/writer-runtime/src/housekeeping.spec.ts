import { randomBytes } from 'node:crypto';
import type { CommitIntent, Id128, MessageCommitSteps, OutboxPublisher, Publication, SendRequest } from '@qim/store-core';
import { COMMIT_AUX_TTL_MS, DurableMessageCommitter } from '@qim/store-core';
import { ManualClock } from '@qim/store-core/testing';
import { connectRedis } from '@qim/store-redis';
import { memoryMessageBackend, openMessageBackend } from '@qim/backends';
import { housekeepingLoop } from './housekeeping';
import { WriterMetrics } from './writer-metrics';

const id = (n: number): Id128 => n.toString(16).padStart(32, '0') as Id128;
const quiet = { info: () => undefined, error: () => undefined };
const publisher: OutboxPublisher = { publish: async (_i: CommitIntent): Promise<Publication> => ({ topic: 't', partition: 0, offset: 0n }) };

function redisUrl(): string {
  const url = process.env['QIM_REDIS_URL'];
  if (!url) throw new Error('QIM_REDIS_URL is not set: run `tools/infra/infra up redis` and `eval "$(tools/infra/infra env)"` (never skipped)');
  return url;
}

const T = id(0x7e);
const CONV = id(0xc0);
const request = (n: number, ephemeral: boolean): SendRequest => ({
  tenantId: T,
  senderId: id(1),
  clientMessageId: id(0x1000 + n),
  conversationId: CONV,
  kind: 'normal',
  control: false,
  contentType: 'text/plain',
  body: new Uint8Array([n]),
  retention: ephemeral ? { kind: 'ephemeral', ttlSeconds: 60 } : { kind: 'default' },
});

/** Sends `normal` default and `ephemeral` ephemeral messages, and leaves one commit RESERVED (a crash after reserve). */
async function traffic(store: MessageCommitSteps, clock: ManualClock, normal: number, ephemeral: number): Promise<void> {
  const committer = new DurableMessageCommitter(store, publisher);
  for (let n = 0; n < normal + ephemeral; n++) {
    await committer.send({ request: request(n, n >= normal), messageId: id(0x9000 + n), createdAt: clock.nowMs(), recipients: [id(1), id(2)] });
  }
  await store.reserve({ request: request(999, false), messageId: id(0x9999), createdAt: clock.nowMs(), recipients: [id(1)] });
}

async function until(what: string, probe: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function reclaimed(metrics: WriterMetrics, kind: string): Promise<number> {
  const m = (await metrics.registry.getSingleMetric('qim_housekeeping_reclaimed_total')!.get()).values.find((v) => v.labels['kind'] === kind);
  return m?.value ?? 0;
}

const NORMAL = 5;
const EPHEMERAL = 4;
const COMMITS = NORMAL + EPHEMERAL + 1;
const lifetimes = COMMIT_AUX_TTL_MS + 1n;

// The shared test timeout (jest.test-timeout.js) applies: the Redis case SCANs the whole keyspace of a
// server other suites fill, which took 18–30 s on a loaded machine against a 30 s override.

describe('writer housekeeping loop', () => {
  it('memory: after sends and a clock moved past the lifetimes, its own rounds leave nothing expired to reclaim', async () => {
    const clock = new ManualClock(1_700_000_000_000n);
    const { store } = memoryMessageBackend(clock);
    const metrics = new WriterMetrics(false);
    await traffic(store, clock, NORMAL, EPHEMERAL);
    const loop = housekeepingLoop(store, { intervalMs: 20, batch: 3, clock }, metrics, quiet);
    expect(loop).not.toBeNull();
    clock.advance(lifetimes);
    loop!.start();
    try {
      await until('the aux facts of every commit reclaimed', async () => (await reclaimed(metrics, 'commit_aux')) === COMMITS);
      await until('every expired ephemeral record reclaimed', async () => (await reclaimed(metrics, 'expired_history')) === EPHEMERAL);
    } finally {
      await loop!.stop();
    }
    expect(await store.gcCommittedAuxiliary(clock.nowMs(), 1_000)).toEqual({ examined: 0, reclaimed: 0, more: false });
    expect(await store.gcExpiredHistory(clock.nowMs(), 1_000)).toEqual({ examined: 0, reclaimed: 0, more: false });
    const page = await store.historyPage({ canReadHistory: async () => true }, { tenantId: T, userId: id(2) }, CONV, {
      direction: 'newer',
      anchor: null,
      maxItems: 100,
      maxBytes: 1 << 20,
    });
    expect(page.items.map((i) => i.record.seq)).toEqual([1n, 2n, 3n, 4n, 5n]);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/qim_housekeeping_backlog\{kind="commit_aux",service="writer"\} 0/);
  });

  it('redis: the loop empties the aux, recovery and ephemeral structures and keeps only durable history', async () => {
    const clock = new ManualClock(BigInt(Date.now()));
    const namespace = `qimhk-${randomBytes(4).toString('hex')}`;
    const backend = await openMessageBackend({ kind: 'redis', redisUrl: redisUrl(), namespace }, 'test', () => undefined, clock);
    const probe = await connectRedis(redisUrl());
    const metrics = new WriterMetrics(false);
    try {
      await traffic(backend.store, clock, NORMAL, EPHEMERAL);
      const keysOf = async () => {
        const keys: string[] = [];
        let cursor = '0';
        do {
          const [next, batch] = await probe.scan(cursor, 'MATCH', `${namespace}:*`, 'COUNT', 10_000);
          keys.push(...batch);
          cursor = next;
        } while (cursor !== '0');
        return keys.sort();
      };
      const before = await keysOf();
      for (const part of [':aux', ':recovery', ':expiry', ':conversations', ':commit:'])
        expect([part, before.some((k) => k.includes(part))]).toEqual([part, true]);
      const loop = housekeepingLoop(backend.store, { intervalMs: 20, batch: 3, clock }, metrics, quiet)!;
      clock.advance(lifetimes);
      loop.start();
      try {
        await until('every commit reclaimed', async () => (await reclaimed(metrics, 'commit_aux')) === COMMITS);
        await until('every ephemeral record reclaimed', async () => (await reclaimed(metrics, 'expired_history')) === EPHEMERAL);
      } finally {
        await loop.stop();
      }
      const after = await keysOf();
      // Aux facts (commit hashes, aux and recovery indexes) and ephemeral structures (expiry index, registry, records) are gone.
      expect(after.filter((k) => /:aux$|:recovery$|:expiry$|\{eg:\d+\}|:commit:/.test(k))).toEqual([]);
      const conv = `${namespace}:{cv:${T}${CONV}}`;
      expect(after.filter((k) => k.includes(':rec:'))).toEqual([1, 2, 3, 4, 5].map((s) => `${conv}:rec:${s.toString(16).padStart(16, '0')}`));
      expect(await probe.zcard(`${conv}:index`)).toBe(NORMAL);
      // What is left besides durable history carries a server TTL (seq claims): nothing grows for ever.
      const rest = after.filter((k) => !k.includes(':rec:') && !k.endsWith(':index') && !k.endsWith(':seq'));
      expect(rest).toHaveLength(COMMITS);
      for (const k of rest) expect([k, (await probe.pttl(k)) > 0]).toEqual([k, true]);
      await probe.del(...after);
    } finally {
      probe.disconnect();
      await backend.close();
    }
  });
});
