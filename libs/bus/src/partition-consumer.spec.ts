import { randomBytes } from 'node:crypto';
import type { Kafka, Producer } from 'kafkajs';
import { DeliveryLagProbe } from './delivery-lag-probe';
import { GroupOffsetsReader } from './group-offsets';
import { createKafka } from './kafka-factory';
import type { ConsumedPage, PageHandler } from './page-handler';
import type { PartitionConsumerOptions } from './partition-consumer';
import { PartitionConsumer, fetchPauseMs, parseCommitPositionMetadata } from './partition-consumer';
import { specBrokers, sleep, until } from './testing/kafka-spec';
import { ensureTopics } from './topics';

/**
 * Over the real Kafka of `tools/infra` (QIM_KAFKA_BROKERS; the spec fails without it): pages are cut,
 * handled in order and committed once each; a failing page pauses only its partition and is read
 * again, never skipped; a page longer than the session timeout keeps the group (no rebalance).
 */
const brokers = specBrokers();

jest.setTimeout(90_000);

describe('fetchPauseMs (fetch pacing)', () => {
  const batch = (records: number, lastOffset: bigint, highWatermark: bigint) => ({
    messages: Array.from({ length: records }),
    highWatermark: highWatermark.toString(),
    lastOffset: () => lastOffset.toString(),
  });

  it('holds the next fetch for the rest of the pace after a batch that reached the high watermark', () => {
    expect(fetchPauseMs(10, 1_000, 1_004, batch(3, 41n, 42n))).toBe(6);
    expect(fetchPauseMs(10, 1_000, 1_000, batch(1, 0n, 1n))).toBe(10);
  });

  it('does not hold it once the pace has passed while the batch was handled', () => {
    expect(fetchPauseMs(10, 1_000, 1_010, batch(3, 41n, 42n))).toBe(0);
    expect(fetchPauseMs(10, 1_000, 1_250, batch(3, 41n, 42n))).toBe(0);
  });

  it('never holds it when pacing is off, after an empty batch, or while the consumer is behind', () => {
    expect(fetchPauseMs(0, 1_000, 1_001, batch(3, 41n, 42n))).toBe(0);
    expect(fetchPauseMs(10, 1_000, 1_001, batch(0, 41n, 42n))).toBe(0);
    // Records after this batch are already there: catching up is never slowed.
    expect(fetchPauseMs(10, 1_000, 1_001, batch(3, 41n, 43n))).toBe(0);
    expect(fetchPauseMs(10, 1_000, 1_001, batch(500, 499n, 100_000n))).toBe(0);
  });
});

describe('PartitionConsumer (real Kafka)', () => {
  let kafka: Kafka;
  let producer: Producer;
  let topic: string;
  let group: string;
  const consumers: PartitionConsumer[] = [];

  beforeEach(async () => {
    const run = randomBytes(4).toString('hex');
    topic = `qimtest.consumer.${run}`;
    group = `qimtest-consumer-${run}`;
    kafka = createKafka({ brokers, clientId: `qimtest-${run}` });
    await ensureTopics(kafka, [{ topic, partitions: 2, replicationFactor: 1 }]);
    producer = kafka.producer();
    await producer.connect();
  });
  afterEach(async () => {
    for (const c of consumers.splice(0)) await c.stop();
    await producer.disconnect();
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
  });

  const produce = (partition: number, n: number) =>
    producer.send({ topic, acks: -1, messages: Array.from({ length: n }, (_, i) => ({ partition, value: Buffer.from(`p${partition}-${i}`) })) });

  function start(handler: PageHandler, pageRecords: number, extra: Partial<PartitionConsumerOptions> = {}): PartitionConsumer {
    const c = new PartitionConsumer(kafka, handler, { groupId: group, topic, concurrency: 2, pageRecords, retry: { initialMs: 100, maxMs: 400 }, ...extra });
    consumers.push(c);
    return c;
  }

  const committed = async (): Promise<Map<number, bigint | null>> => {
    const reader = new GroupOffsetsReader(kafka);
    try {
      return new Map((await reader.offsets(group, topic)).map((p) => [p.partition, p.committed]));
    } finally {
      await reader.close();
    }
  };

  it('hands over pages of at most pageRecords, in offset order, and commits toOffset + 1 after each', async () => {
    await produce(0, 7);
    const pages: ConsumedPage[] = [];
    const c = start({ handlePage: async (p) => void pages.push(p) }, 3);
    await c.start();
    await until('7 records handled', () => pages.reduce((n, p) => n + p.records.length, 0) >= 7);
    expect(pages.every((p) => p.records.length <= 3 && p.partition === 0)).toBe(true);
    const offsets = pages.flatMap((p) => p.records.map((r) => r.offset));
    expect(offsets).toEqual([0n, 1n, 2n, 3n, 4n, 5n, 6n]);
    for (const p of pages) expect([p.fromOffset, p.toOffset]).toEqual([p.records[0]!.offset, p.records[p.records.length - 1]!.offset]);
    await until('offset 7 committed', async () => (await committed()).get(0) === 7n);
  });

  it('takes commits off the page cycle: the pages handled while a commit is in flight share the next request', async () => {
    await produce(0, 60);
    let handled = 0;
    const commits: bigint[] = [];
    const results: string[] = [];
    // The first OffsetCommit request is held in flight until the test lets it go: the moment is the
    // test's, not the scheduler's.
    const requests: bigint[] = [];
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((r) => (releaseFirst = r));
    const beforeCommitRequest = (offsets: ReadonlyMap<number, bigint>) => (requests.push(offsets.get(0)!), requests.length === 1 ? firstHeld : undefined);
    const c = start({ handlePage: async () => void (handled += 1) }, 1, {
      onCommitted: (_p, o) => void commits.push(o),
      onCommitRequest: (r) => void results.push(r),
      beforeCommitRequest,
    });
    await c.start();
    // Handling never waits for a commit: all 60 pages are handled while the first request is held.
    await until('60 pages handled', () => handled === 60);
    expect(requests).toHaveLength(1);
    expect(requests[0]!).toBeLessThan(60n);
    releaseFirst();
    await until('offset 60 committed', async () => (await committed()).get(0) === 60n);
    // Every page handled meanwhile went in one next request, carrying the latest offset.
    expect(requests).toEqual([requests[0], 60n]);
    expect(c.commitRequests()).toBe(2);
    expect(commits).toEqual(requests);
    expect(results).toEqual(['ok', 'ok']);
  });

  it('with a commit interval, pages handled one at a time share a few OffsetCommit requests at most one per interval', async () => {
    await produce(0, 40);
    await produce(1, 40);
    let handled = 0;
    // Pages that take a while each: without the interval each one's commit would go in a request of its own.
    const c = start({ handlePage: async () => void (await new Promise((r) => setTimeout(r, 10)), (handled += 1)) }, 1, { commitIntervalMs: 250 });
    const t0 = performance.now();
    await c.start();
    await until('both partitions committed to 40', async () => {
      const o = await committed();
      return o.get(0) === 40n && o.get(1) === 40n;
    });
    const elapsed = performance.now() - t0;
    expect(handled).toBe(80);
    // Requests start at least 250 ms apart: no more than one per started interval (80 pages; without
    // the interval, about one per page). Bounded by the time the run took, not by a guess of it.
    expect(c.commitRequests()).toBeLessThanOrEqual(1 + Math.ceil(elapsed / 250));
  });

  /**
   * ms from producing one record, while the consumer's first (empty) fetch is in flight, to its
   * hand-over; and how long the fetch that carried it was out (from the answer of the fetch before
   * it, or from before the consumer started: it was sent after either).
   */
  async function handOverDelay(extra: Partial<PartitionConsumerOptions> = {}): Promise<number> {
    return (await handOver(extra)).delayMs;
  }

  async function handOver(extra: Partial<PartitionConsumerOptions> = {}): Promise<{ delayMs: number; carryingFetchMs: number }> {
    const handedAt: number[] = [];
    const fetchAnswers: number[] = [];
    const onRequest = (api: string) => void (api === 'Fetch' && fetchAnswers.push(performance.now()));
    const c = start({ handlePage: async () => void handedAt.push(performance.now()) }, 10, { onRequest, ...extra });
    const startedAt = performance.now();
    await c.start();
    await new Promise((r) => setTimeout(r, 200));
    const producedAt = performance.now();
    await produce(0, 1);
    await until('the record handed over', () => handedAt.length === 1);
    const answered = fetchAnswers.filter((t) => t <= handedAt[0]!);
    const carrying = answered[answered.length - 1]!;
    const sent = answered.length >= 2 ? answered[answered.length - 2]! : startedAt;
    return { delayMs: handedAt[0]! - producedAt, carryingFetchMs: carrying - sent };
  }

  it('passes the fetch size and wait to the broker: a fetch that wants more bytes than there are waits out its wait', async () => {
    // The broker held the fetch that carried the record for its whole wait (2 s from when it
    // arrived), not until the first byte: measured on that fetch, so a late test timer cannot shorten it.
    expect((await handOver({ fetchMinBytes: 1_000_000, fetchMaxWaitMs: 2_000 })).carryingFetchMs).toBeGreaterThanOrEqual(1_990);
  });

  it('by default a fetch answers at the first byte', async () => {
    expect(await handOverDelay()).toBeLessThan(800);
  });

  it('fetch pacing does not delay a record after a quiet spell (an idle consumer is never paced)', async () => {
    expect(await handOverDelay({ fetchPaceMs: 3_000 })).toBeLessThan(800);
  });

  /** Hand-overs while 60 records arrive one every 5 ms on partition 0 (the consumer caught up throughout). */
  async function trickleHandOvers(
    extra: Partial<PartitionConsumerOptions> = {},
  ): Promise<{ handOvers: number; records: number; fetches: number; elapsedMs: number }> {
    let handOvers = 0;
    let records = 0;
    let fetches = 0;
    const onRequest = (api: string) => void (api === 'Fetch' && (fetches += 1));
    const c = start({ handlePage: async (p) => void ((handOvers += 1), (records += p.records.length)) }, 100, { onRequest, ...extra });
    await c.start();
    await new Promise((r) => setTimeout(r, 200));
    const t0 = performance.now();
    for (let i = 0; i < 60; i++) {
      await produce(0, 1);
      await new Promise((r) => setTimeout(r, 5));
    }
    await until('60 records handed over', () => records === 60);
    return { handOvers, records, fetches, elapsedMs: performance.now() - t0 };
  }

  it('with fetch pacing, a caught-up consumer fetches a steady trickle in batches, every record handed over once', async () => {
    // Each fetch answers at the first record; unpaced, a trickle is nearly one hand-over per record.
    // Paced at 100 ms: at most one hand-over per started 100 ms of the trickle (however long the
    // trickle took on this machine), so a handful of fetches carry all 60 records.
    const paced = await trickleHandOvers({ fetchPaceMs: 100 });
    expect(paced.records).toBe(60);
    expect(paced.handOvers).toBeLessThanOrEqual(1 + Math.ceil(paced.elapsedMs / 100));
    // Every hand-over came from a fetch the broker answered (onRequest sees each request by API).
    expect(paced.fetches).toBeGreaterThanOrEqual(paced.handOvers);
  });

  it('without fetch pacing, the same trickle is handed over in many small fetches', async () => {
    // The control for the test above: the trickle itself is slow enough to be fetched record by record.
    const unpaced = await trickleHandOvers();
    expect(unpaced.handOvers).toBeGreaterThan(20);
    expect(unpaced.fetches).toBeGreaterThanOrEqual(unpaced.handOvers);
  });

  it('pauses only the partition of a failing page, reads the same page again, never skips it', async () => {
    await produce(0, 4);
    await produce(1, 4);
    const seen: { partition: number; from: bigint }[] = [];
    let failures = 0;
    const c = start(
      {
        handlePage: async (p) => {
          if (p.partition === 0 && failures < 3) {
            failures += 1;
            throw new Error(`store unavailable ${failures}`);
          }
          seen.push({ partition: p.partition, from: p.fromOffset });
        },
      },
      2,
    );
    await c.start();
    await until('partition 0 paused for a retry', () => c.retrying().has(0));
    expect(c.retrying().get(0)).toMatchObject({ error: expect.stringMatching(/^store unavailable/) });
    await until('partition 1 handled while 0 fails', () => seen.filter((s) => s.partition === 1).length === 2);
    await until('partition 0 handled after its retries', () => seen.filter((s) => s.partition === 0).length === 2);
    expect(failures).toBe(3);
    expect(seen.filter((s) => s.partition === 0).map((s) => s.from)).toEqual([0n, 2n]);
    await until('both partitions committed to their end', async () => {
      const m = await committed();
      return m.get(0) === 4n && m.get(1) === 4n;
    });
    expect(c.retrying().size).toBe(0);
  });

  it('keeps group membership through a page longer than the session timeout (15 s): handled once, no rebalance', async () => {
    await produce(0, 1);
    let handled = 0;
    let assignments = 0;
    const c = start(
      {
        handlePage: async () => {
          handled += 1;
          await sleep(17_000);
        },
        onAssigned: () => void (assignments += 1),
      },
      10,
    );
    await c.start();
    await until('offset 1 committed', async () => (await committed()).get(0) === 1n, 40_000);
    await sleep(1_000);
    expect([handled, assignments]).toEqual([1, 1]);
    expect(c.healthy().ok).toBe(true);
  });

  it('commits the page in flight when stopped during it (the final commit really lands)', async () => {
    await produce(0, 3);
    let release!: () => void;
    let entered!: () => void;
    const inPage = new Promise<void>((r) => (entered = r));
    const c = start(
      {
        handlePage: async () => {
          entered();
          await new Promise<void>((r) => (release = r));
        },
      },
      10,
    );
    await c.start();
    await inPage;
    const stopping = c.stop();
    await sleep(300);
    release();
    await stopping;
    consumers.splice(consumers.indexOf(c), 1);
    expect((await committed()).get(0)).toBe(3n);
  });

  it('hands over each record with its Kafka timestamp and commits the last one of the page beside the offset, which the group offsets read back', async () => {
    const t0 = Date.now() - 60_000;
    await producer.send({
      topic,
      acks: -1,
      messages: [0, 1, 2].map((i) => ({ partition: 1, value: Buffer.from(`t${i}`), timestamp: String(t0 + i * 1_000) })),
    });
    const pages: ConsumedPage[] = [];
    const c = start({ handlePage: async (p) => void pages.push(p) }, 2);
    await c.start();
    await until('3 records handled', () => pages.reduce((n, p) => n + p.records.length, 0) >= 3);
    expect(pages.flatMap((p) => p.records.map((r) => r.timestamp))).toEqual([t0, t0 + 1_000, t0 + 2_000]);
    const reader = new GroupOffsetsReader(kafka);
    try {
      await until('offset 3 committed', async () => (await reader.offsets(group, topic)).find((p) => p.partition === 1)?.committed === 3n);
      const p1 = (await reader.offsets(group, topic)).find((p) => p.partition === 1)!;
      expect(parseCommitPositionMetadata(p1.metadata)).toBe(t0 + 2_000);
      expect(await reader.members(group)).toBe(1);
      // Caught up: nothing waits behind the committed positions.
      expect((await new DeliveryLagProbe(reader, [{ groupId: group, topic }]).read()).ageMs).toBe(0);
      // A record the group has not handled yet (the handler now holds every page): its wait shows as the time since the last committed record.
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      await c.stop();
      consumers.splice(consumers.indexOf(c), 1);
      expect(await reader.members(group)).toBe(0);
      const holding = start({ handlePage: () => held }, 10);
      await holding.start();
      await producer.send({ topic, acks: -1, messages: [{ partition: 1, value: Buffer.from('late') }] });
      await until('the new record is at the log end', async () => (await reader.offsets(group, topic)).find((p) => p.partition === 1)?.end === 4n);
      const lag = await new DeliveryLagProbe(reader, [{ groupId: group, topic }], () => t0 + 2_000 + 7_000).read();
      expect(lag.ageMs).toBe(7_000);
      expect(lag.groups[0]).toMatchObject({ members: 1, lagMs: 7_000, behindRecords: 1n, unknownPartitions: 0 });
      release();
    } finally {
      await reader.close();
    }
  });

  it('passes record headers through to the page handler', async () => {
    await producer.send({ topic, acks: -1, messages: [{ partition: 0, value: Buffer.from('v'), headers: { trace: 'abc', bin: Buffer.from([0, 255]) } }] });
    const pages: ConsumedPage[] = [];
    const c = start({ handlePage: async (p) => void pages.push(p) }, 10);
    await c.start();
    await until('record handled', () => pages.length > 0);
    expect(pages[0]!.records[0]!.headers).toEqual({ trace: Buffer.from('abc'), bin: Buffer.from([0, 255]) });
  });

  it('fails start-up closed and reports a terminal failure when the group join crashes for good', async () => {
    const reasons: string[] = [];
    // The broker refuses a session timeout above group.max.session.timeout.ms (INVALID_SESSION_TIMEOUT, not retriable).
    const c = start({ handlePage: async () => undefined }, 10, { sessionTimeoutMs: 3_600_000, onTerminal: (r) => reasons.push(r), joinTimeoutMs: 20_000 });
    await expect(c.start()).rejects.toThrow(/stopped for good/);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(new RegExp(`consumer ${group} of ${topic.replace(/\./g, '\\.')} stopped for good: .*session timeout`, 'i'));
    expect(c.healthy().ok).toBe(false);
  });

  it('fails start-up closed when the group cannot be joined in time', async () => {
    const c = start({ handlePage: async () => undefined }, 10, { joinTimeoutMs: 1 });
    await expect(c.start()).rejects.toThrow(/did not join its group within 1 ms/);
  });
});
