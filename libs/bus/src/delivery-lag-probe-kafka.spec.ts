import { randomBytes } from 'node:crypto';
import type { AddressInfo, Server, Socket } from 'node:net';
import { createServer } from 'node:net';
import type { Kafka, Producer } from 'kafkajs';
import { DeliveryLagProbe, LagReadTimeoutError } from './delivery-lag-probe';
import { GroupOffsetsReader } from './group-offsets';
import { createKafka } from './kafka-factory';
import { MailboxGroupFinder } from './mailbox-groups';
import type { PageHandler } from './page-handler';
import { PartitionConsumer } from './partition-consumer';
import { specBrokers, until } from './testing/kafka-spec';
import { ensureTopics } from './topics';

/**
 * The delivery lag probe over the real Kafka of `tools/infra` (QIM_KAFKA_BROKERS): a partition whose
 * consumer refuses its pages (a refused shard) stops counting once its position stood still for the
 * stall window while the other partition drains; a new epoch's group replaying what the older
 * epoch's group delivered does not count; a read of a broker that does not answer is bounded.
 * The probe's clock is the test's: the stall window passes when the test says so.
 */
const brokers = specBrokers();

jest.setTimeout(90_000);

describe('DeliveryLagProbe (real Kafka)', () => {
  let kafka: Kafka;
  let producer: Producer;
  let reader: GroupOffsetsReader;
  let run: string;
  const topics: string[] = [];
  const consumers: PartitionConsumer[] = [];
  const releases: (() => void)[] = [];

  beforeEach(async () => {
    run = randomBytes(4).toString('hex');
    kafka = createKafka({ brokers, clientId: `qimtest-${run}` });
    producer = kafka.producer();
    await producer.connect();
    reader = new GroupOffsetsReader(kafka);
  });
  afterEach(async () => {
    for (const r of releases.splice(0)) r();
    for (const c of consumers.splice(0)) await c.stop();
    await producer.disconnect();
    await reader.close();
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics: topics.splice(0) }).catch(() => undefined);
    await admin.disconnect();
  });

  async function topic(name: string, partitions: number): Promise<string> {
    const t = `qimtest.lag.${run}.${name}`;
    await ensureTopics(kafka, [{ topic: t, partitions, replicationFactor: 1 }]);
    topics.push(t);
    return t;
  }
  const produce = (t: string, partition: number, n: number, timestamp?: number) =>
    producer.send({
      topic: t,
      acks: -1,
      messages: Array.from({ length: n }, (_, i) => ({
        partition,
        value: Buffer.from(`r${i}`),
        ...(timestamp === undefined ? {} : { timestamp: String(timestamp) }),
      })),
    });
  async function consume(groupId: string, t: string, handler: PageHandler, pageRecords = 10): Promise<PartitionConsumer> {
    const c = new PartitionConsumer(kafka, handler, {
      groupId,
      topic: t,
      concurrency: 2,
      pageRecords,
      retry: { initialMs: 100, maxMs: 400 },
      commitIntervalMs: 0,
    });
    consumers.push(c);
    await c.start();
    return c;
  }
  const committed = async (groupId: string, t: string, partition: number) =>
    (await reader.offsets(groupId, t)).find((p) => p.partition === partition)?.committed ?? null;
  const hold = (): Promise<void> => new Promise<void>((r) => releases.push(r));

  it('leaves out a partition whose consumer refuses its pages once its position stood still for the stall window, while the draining one counts', async () => {
    const t = await topic('d', 2);
    const group = `qimtest-lag-${run}`;
    // Partition 1's consumer refuses every page from its second on (as a shard at a source hole does:
    // the page fails, the partition is paused and retried with backoff); partition 0 drains.
    let p1Pages = 0;
    await consume(
      group,
      t,
      {
        handlePage: async (p) => {
          if (p.partition === 1 && ++p1Pages > 1) throw new Error('refused: FRONTIER_GAP (test)');
        },
      },
      2,
    );
    await produce(t, 1, 2);
    await until('partition 1 committed its first page', async () => (await committed(group, t, 1)) === 2n);
    await produce(t, 1, 5);
    await produce(t, 0, 3);
    await until('partition 0 committed', async () => (await committed(group, t, 0)) === 3n);
    const clock = { now: Date.now() };
    const probe = new DeliveryLagProbe(reader, [{ groupId: group, topic: t }], () => clock.now, { stallMs: 5_000 });
    let lag = await probe.read();
    expect(lag.groups[0]).toMatchObject({ members: 1, stalledPartitions: [], behindRecords: 5n });
    expect(lag.ageMs).toBeGreaterThan(0);
    // Partition 0 keeps draining; partition 1's position has not moved.
    await produce(t, 0, 4);
    await until('partition 0 committed again', async () => (await committed(group, t, 0)) === 7n);
    clock.now += 5_000;
    lag = await probe.read();
    expect(lag.groups[0]).toMatchObject({ stalledPartitions: [1], behindRecords: 0n, lagMs: 0 });
    expect(lag.ageMs).toBe(0);
  });

  it('finds the live shard group of the newest epoch on the broker and does not count its replay of what the older epoch delivered', async () => {
    const dispatch = await topic('dispatch', 1);
    const messages = await topic('messages', 1);
    const naming = { clientId: `qimtest-mbx-${run}`, messagesTopic: messages, dispatchTopic: dispatch };
    const weekAgo = Date.now() - 6 * 86_400_000;
    await produce(dispatch, 0, 20, weekAgo);
    // Epoch 1 delivered all 20, then every mailbox stopped.
    const e1 = await consume(`${naming.clientId}-shards-e1`, dispatch, { handlePage: async () => undefined }, 5);
    await until('epoch 1 delivered everything', async () => (await committed(`${naming.clientId}-shards-e1`, dispatch, 0)) === 20n);
    await e1.stop();
    consumers.splice(consumers.indexOf(e1), 1);
    // Epoch 2 replays from the start; it holds its second page (mid-replay).
    let pages = 0;
    await consume(`${naming.clientId}-shards-e2`, dispatch, { handlePage: async () => (++pages > 1 ? hold() : undefined) }, 5);
    await until('epoch 2 replayed a page', async () => (await committed(`${naming.clientId}-shards-e2`, dispatch, 0)) === 5n);
    const watched: string[][] = [];
    const probe = new DeliveryLagProbe(reader, new MailboxGroupFinder(reader, naming), Date.now, { onWatch: (g) => watched.push(g.map((x) => x.groupId)) });
    const lag = await probe.read();
    expect(watched).toEqual([[`${naming.clientId}-router`, `${naming.clientId}-shards-e2`]]);
    const e2 = lag.groups.find((g) => g.groupId.endsWith('-e2'))!;
    expect(e2).toMatchObject({ members: 1, replayingPartitions: [0], behindRecords: 0n, replayOf: [`${naming.clientId}-shards-e1`] });
    expect(lag.ageMs).toBe(0);
    // Watched without the older epoch's positions (as the writer did before): the replay reads as days of delivery lag.
    const plain = await new DeliveryLagProbe(reader, [{ groupId: `${naming.clientId}-shards-e2`, topic: dispatch }]).read();
    expect(plain.ageMs).toBeGreaterThan(5 * 86_400_000);
  });

  describe('a broker that does not answer', () => {
    let server: Server;
    const sockets = new Set<Socket>();
    beforeAll(async () => {
      // Accepts connections and never answers (what a SIGSTOPped broker looks like to a client).
      server = createServer((s) => {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    });
    afterAll(async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    });

    it('bounds a lag read by the read timeout, and fails the next one at once while the first still hangs', async () => {
      // The connection is accepted, the first request never answered: unbounded, this read takes the
      // request timeout (5 s here, 30 s by default, more with retries).
      const silent = new GroupOffsetsReader(
        createKafka({
          brokers: [`127.0.0.1:${(server.address() as AddressInfo).port}`],
          clientId: `qimtest-silent-${run}`,
          retries: 2,
          requestTimeoutMs: 5_000,
        }),
      );
      const probe = new DeliveryLagProbe(silent, [{ groupId: 'g', topic: 't' }], Date.now, { readTimeoutMs: 1_500 });
      await expect(probe.read()).rejects.toBeInstanceOf(LagReadTimeoutError);
      await expect(probe.read()).rejects.toThrow(/still unanswered/);
      expect(sockets.size).toBeGreaterThan(0);
      // The hanging read ends on its own (the client gives up); the probe reads again after it.
      await until(
        'the hanging read ended',
        async () =>
          probe.read().then(
            () => true,
            (e: Error) => !/still unanswered/.test(e.message),
          ),
        60_000,
      );
      await silent.close().catch(() => undefined);
    });
  });
});
