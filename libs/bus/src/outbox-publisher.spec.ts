import { randomUUID } from 'node:crypto';
import { InvalidInputError, encodeMessageEvent, messageEventOf } from '@qim/store-core';
import type { CommitIntent, Publication } from '@qim/store-core';
import type { Kafka } from 'kafkajs';
import { createKafka } from './kafka-factory';
import { KafkaOutboxPublisher } from './outbox-publisher';
import { falseAcks } from './testing/burst';
import { sampleIntent } from './testing/sample-intent';
import { readTopic } from './testing/topic-reader';
import { createTopicsWithLeaders } from './topics';

jest.setTimeout(120_000);

function requireBrokers(): string[] {
  const v = process.env['QIM_KAFKA_BROKERS'];
  if (!v) throw new Error('QIM_KAFKA_BROKERS is not set: tools/infra/infra up kafka && eval "$(tools/infra/infra env)"');
  return v.split(',');
}

const acked = (intents: readonly CommitIntent[], pubs: readonly Publication[]) =>
  pubs.map((p, i) => ({ partition: p.partition, offset: p.offset, value: encodeMessageEvent(messageEventOf(intents[i]!)) }));

describe('KafkaOutboxPublisher (real Kafka)', () => {
  let kafka: Kafka;
  const topics: string[] = [];
  const newTopic = async (): Promise<string> => {
    const topic = `qim-bus-outbox-${randomUUID()}`;
    const admin = kafka.admin();
    await admin.connect();
    await createTopicsWithLeaders(admin, { topics: [{ topic, numPartitions: 3, replicationFactor: 1 }] });
    await admin.disconnect();
    topics.push(topic);
    return topic;
  };

  beforeAll(() => {
    kafka = createKafka({ brokers: requireBrokers(), clientId: 'bus-outbox-spec' });
  });

  afterAll(async () => {
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics }).catch(() => undefined);
    await admin.disconnect();
  });

  it('sends N concurrent publications in fewer than N produce requests, each acknowledged with its own record', async () => {
    const topic = await newTopic();
    const publisher = new KafkaOutboxPublisher(kafka, topic);
    await publisher.connect();
    const intents = Array.from({ length: 300 }, (_, n) => sampleIntent(n));
    // Three waves a few ms apart: each wave arrives while the previous request may be in flight.
    const waves = [intents.slice(0, 100), intents.slice(100, 200), intents.slice(200)];
    const pending: Promise<Publication>[] = [];
    for (const wave of waves) {
      pending.push(...wave.map((i) => publisher.publish(i)));
      await new Promise((r) => setTimeout(r, 2));
    }
    const pubs = await Promise.all(pending);
    const stats = publisher.stats();
    await publisher.disconnect();

    expect(stats.produceRequests).toBeLessThan(intents.length / 10);
    expect(stats.units).toBe(intents.length);
    const stored = await readTopic(kafka, topic);
    expect(stored.size).toBe(intents.length);
    expect(falseAcks(stored, acked(intents, pubs))).toEqual([]);
    expect(pubs.every((p) => p.topic === topic)).toBe(true);
  });

  it('publications issued while a produce is in flight all go in the next request, in call order per conversation', async () => {
    const topic = await newTopic();
    const publisher = new KafkaOutboxPublisher(kafka, topic);
    await publisher.connect();
    const head = sampleIntent(0, { conversations: 1 });
    const first = publisher.publish(head);
    // Let the first request leave, then publish 40 more while it is in flight.
    await new Promise((r) => setImmediate(r));
    const rest = Array.from({ length: 40 }, (_, n) => sampleIntent(n + 1, { conversations: 1 }));
    const later = rest.map((i) => publisher.publish(i));
    const pubs = [await first, ...(await Promise.all(later))];
    const stats = publisher.stats();
    await publisher.disconnect();

    expect(stats.produceRequests).toBe(2);
    // One conversation, one partition: consecutive offsets in call order.
    expect(new Set(pubs.map((p) => p.partition)).size).toBe(1);
    expect(pubs.map((p) => p.offset - pubs[0]!.offset)).toEqual(pubs.map((_, i) => BigInt(i)));
    expect(falseAcks(await readTopic(kafka, topic), acked([head, ...rest], pubs))).toEqual([]);
  });

  /** 30 publications issued 10 ms apart (none awaited before the next): produce requests and the records as stored. */
  async function trickle(paceMs?: number): Promise<{ requests: number; falseAcks: unknown[]; count: number }> {
    const topic = await newTopic();
    const reported: string[] = [];
    const onRequest = (api: string) => void reported.push(api);
    const publisher = new KafkaOutboxPublisher(kafka, topic, paceMs === undefined ? { onRequest } : { paceMs, onRequest });
    await publisher.connect();
    const intents = Array.from({ length: 30 }, (_, n) => sampleIntent(n));
    const pending: Promise<Publication>[] = [];
    for (const intent of intents) {
      pending.push(publisher.publish(intent));
      await new Promise((r) => setTimeout(r, 10));
    }
    const pubs = await Promise.all(pending);
    const stats = publisher.stats();
    await publisher.disconnect();
    const stored = await readTopic(kafka, topic);
    // onRequest saw every request by API: as many Produce as the producer counted, beside its Metadata etc.
    expect(reported.filter((api) => api === 'Produce').length).toBe(stats.produceRequests);
    expect(reported).toContain('Metadata');
    return { requests: stats.produceRequests, falseAcks: falseAcks(stored, acked(intents, pubs)), count: stored.size };
  }

  it('with produce pacing, a steady trickle goes in a few requests, each publication acknowledged with its own record', async () => {
    // Paced at 100 ms over the ~0.3 s trickle: at most one request per started 100 ms.
    const paced = await trickle(100);
    expect(paced.requests).toBeLessThanOrEqual(5);
    expect(paced.count).toBe(30);
    expect(paced.falseAcks).toEqual([]);
  });

  it('without produce pacing, the same trickle goes nearly one request per publication', async () => {
    // The control for the test above: 10 ms apart is slower than a produce round trip here.
    expect((await trickle()).requests).toBeGreaterThan(10);
  });

  it('with produce pacing, a publication after a quiet spell is sent at once (only a busy stream waits)', async () => {
    const topic = await newTopic();
    const publisher = new KafkaOutboxPublisher(kafka, topic, { paceMs: 2_000 });
    await publisher.connect();
    await publisher.publish(sampleIntent(1));
    await new Promise((r) => setTimeout(r, 2_100));
    const started = performance.now();
    await publisher.publish(sampleIntent(2));
    const ms = performance.now() - started;
    await publisher.disconnect();
    // A fixed linger would hold it 2 s; the pace has long passed since the previous request.
    expect(ms).toBeLessThan(1_000);
  });

  it('refuses a negative or non-finite pace', () => {
    for (const paceMs of [-1, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => new KafkaOutboxPublisher(kafka, 'any', { paceMs })).toThrow(RangeError);
  });

  it('an intent that cannot be encoded is InvalidInputError and nothing is sent', async () => {
    const topic = await newTopic();
    const publisher = new KafkaOutboxPublisher(kafka, topic);
    await publisher.connect();
    await expect(publisher.publish({ ...sampleIntent(1), seq: 0n })).rejects.toBeInstanceOf(InvalidInputError);
    const stats = publisher.stats();
    await publisher.disconnect();
    expect(stats.produceRequests).toBe(0);
    expect((await readTopic(kafka, topic)).size).toBe(0);
  });

  it('disconnect lets queued publications finish; a publication after it is UNAVAILABLE', async () => {
    const topic = await newTopic();
    const publisher = new KafkaOutboxPublisher(kafka, topic);
    await publisher.connect();
    const intents = Array.from({ length: 20 }, (_, n) => sampleIntent(n));
    const pending = intents.map((i) => publisher.publish(i));
    const closed = publisher.disconnect();
    await expect(publisher.publish(sampleIntent(99))).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    const pubs = await Promise.all(pending);
    await closed;
    expect(falseAcks(await readTopic(kafka, topic), acked(intents, pubs))).toEqual([]);
  });
});
