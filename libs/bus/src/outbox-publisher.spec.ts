import { randomUUID } from 'node:crypto';
import { InvalidInputError, encodeMessageEvent, messageEventOf } from '@qim/store-core';
import type { CommitIntent, Publication } from '@qim/store-core';
import type { Kafka } from 'kafkajs';
import { createKafka } from './kafka-factory';
import { KafkaOutboxPublisher } from './outbox-publisher';
import { falseAcks } from './testing/burst';
import { ManualPaceClock, heldSends } from './testing/held-sends';
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
    const held = heldSends();
    const publisher = new KafkaOutboxPublisher(kafka, topic, { beforeSend: held.beforeSend });
    await publisher.connect();
    const intents = Array.from({ length: 300 }, (_, n) => sampleIntent(n));
    // Three waves: the first request (wave one) is held in flight while waves two and three are issued.
    const pending = intents.slice(0, 100).map((i) => publisher.publish(i));
    await held.taken(1);
    pending.push(...intents.slice(100).map((i) => publisher.publish(i)));
    held.release(1);
    await held.taken(2);
    held.release(2);
    const pubs = await Promise.all(pending);
    const stats = publisher.stats();
    await publisher.disconnect();

    expect(held.batches).toEqual([
      { units: 100, records: 100 },
      { units: 200, records: 200 },
    ]);
    expect(stats.sends).toBe(2);
    expect(stats.units).toBe(intents.length);
    const stored = await readTopic(kafka, topic);
    expect(stored.size).toBe(intents.length);
    expect(falseAcks(stored, acked(intents, pubs))).toEqual([]);
    expect(pubs.every((p) => p.topic === topic)).toBe(true);
  });

  it('publications issued while a produce is in flight all go in the next request, in call order per conversation', async () => {
    const topic = await newTopic();
    const held = heldSends();
    const reported: string[] = [];
    const publisher = new KafkaOutboxPublisher(kafka, topic, { beforeSend: held.beforeSend, onRequest: (api) => void reported.push(api) });
    await publisher.connect();
    const head = sampleIntent(0, { conversations: 1 });
    const first = publisher.publish(head);
    // The first request is held in flight; 40 more are published meanwhile.
    await held.taken(1);
    const rest = Array.from({ length: 40 }, (_, n) => sampleIntent(n + 1, { conversations: 1 }));
    const later = rest.map((i) => publisher.publish(i));
    held.release(1);
    await held.taken(2);
    held.release(2);
    const pubs = [await first, ...(await Promise.all(later))];
    const stats = publisher.stats();
    await publisher.disconnect();

    expect(held.batches).toEqual([
      { units: 1, records: 1 },
      { units: 40, records: 40 },
    ]);
    expect(stats.sends).toBe(2);
    // Produce requests a broker answered (a retried request counts again), as onRequest saw them too.
    expect(stats.produceRequests).toBeGreaterThanOrEqual(2);
    expect(reported.filter((api) => api === 'Produce').length).toBe(stats.produceRequests);
    expect(reported).toContain('Metadata');
    // One conversation, one partition: consecutive offsets in call order.
    expect(new Set(pubs.map((p) => p.partition)).size).toBe(1);
    expect(pubs.map((p) => p.offset - pubs[0]!.offset)).toEqual(pubs.map((_, i) => BigInt(i)));
    expect(falseAcks(await readTopic(kafka, topic), acked([head, ...rest], pubs))).toEqual([]);
  });

  /**
   * Publication A is sent and held in flight; B is published; A is released; C and D are published
   * once the producer has decided about B (waiting for the pace, or sending B at once and holding
   * it). The clock moves only when the test says, so the outcome depends on the pace alone.
   */
  async function paced(paceMs: number): Promise<{ batches: number[]; sleeps: number[]; falseAcks: unknown[] }> {
    const topic = await newTopic();
    const held = heldSends();
    const clock = new ManualPaceClock();
    const publisher = new KafkaOutboxPublisher(kafka, topic, { paceMs, clock, beforeSend: held.beforeSend });
    await publisher.connect();
    const intents = Array.from({ length: 4 }, (_, n) => sampleIntent(n));
    const pending = [publisher.publish(intents[0]!)];
    await held.taken(1);
    pending.push(publisher.publish(intents[1]!));
    held.release(1);
    await Promise.race([clock.sleeping(), held.taken(2)]);
    pending.push(publisher.publish(intents[2]!), publisher.publish(intents[3]!));
    if (clock.sleeps.length > 0) clock.wake();
    for (let n = 2; n <= 3; n++) {
      await Promise.race([held.taken(n), Promise.all(pending)]);
      held.release(n);
    }
    const pubs = await Promise.all(pending);
    await publisher.disconnect();
    return { batches: held.batches.map((b) => b.units), sleeps: clock.sleeps, falseAcks: falseAcks(await readTopic(kafka, topic), acked(intents, pubs)) };
  }

  it('with produce pacing, publications during the pace wait for it and go together, each acknowledged with its own record', async () => {
    const r = await paced(100);
    expect(r.sleeps).toEqual([100]);
    expect(r.batches).toEqual([1, 3]);
    expect(r.falseAcks).toEqual([]);
  });

  it('without produce pacing, the same publications go as soon as the previous request settled', async () => {
    // The control for the test above.
    const r = await paced(0);
    expect(r.sleeps).toEqual([]);
    expect(r.batches).toEqual([1, 1, 2]);
    expect(r.falseAcks).toEqual([]);
  });

  it('with produce pacing, a publication after a quiet spell is sent at once (only a busy stream waits)', async () => {
    const topic = await newTopic();
    const clock = new ManualPaceClock();
    const publisher = new KafkaOutboxPublisher(kafka, topic, { paceMs: 2_000, clock });
    await publisher.connect();
    await publisher.publish(sampleIntent(1));
    clock.advance(2_100);
    await publisher.publish(sampleIntent(2));
    clock.advance(1_999);
    const third = publisher.publish(sampleIntent(3));
    await clock.sleeping();
    clock.wake();
    await third;
    await publisher.disconnect();
    // A fixed linger would hold every one 2 s; only the third, 1,999 ms after the second started, waits (1 ms).
    expect(clock.sleeps).toEqual([1]);
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
