import { FanoutLimitError, encodeMessageEvent, messageEventOf } from '@qim/store-core';
import type { CommitIntent, Publication } from '@qim/store-core';
import type { Kafka } from 'kafkajs';
import { createKafka } from './kafka-factory';
import { KafkaOutboxPublisher } from './outbox-publisher';
import { RECORD_BATCH_OVERHEAD_BYTES, RECORD_OVERHEAD_BYTES } from './record-limit';
import { falseAcks } from './testing/burst';
import { createSpecTopic, deleteSpecTopic, specBrokers } from './testing/kafka-spec';
import { sampleIntent } from './testing/sample-intent';
import { readTopic } from './testing/topic-reader';

/**
 * Issue 28 item 11, over the real Kafka of `tools/infra`: the outbox knows its topic's record limit
 * (`max.message.bytes`, here set small on the topic) from start-up, refuses an event that can never
 * fit before sending anything, and never groups events into a batch the broker refuses.
 */
jest.setTimeout(120_000);

const LIMIT = 16_384;

const eventBytes = (i: CommitIntent): number => encodeMessageEvent(messageEventOf(i)).length;

/** An intent whose event is exactly `bytes` long (the body takes up the difference). */
function intentOfSize(n: number, bytes: number): CommitIntent {
  const base = sampleIntent(n, { bodyBytes: 0, recipients: 2 });
  const body = bytes - eventBytes(base);
  const sized = sampleIntent(n, { bodyBytes: body, recipients: 2 });
  expect(eventBytes(sized)).toBe(bytes);
  return sized;
}

describe('KafkaOutboxPublisher record limit (real Kafka, a topic with max.message.bytes 16384)', () => {
  let kafka: Kafka;
  let topic: string;

  beforeAll(async () => {
    kafka = createKafka({ brokers: specBrokers(), clientId: 'bus-outbox-limit-spec' });
    topic = await createSpecTopic(kafka, 'qim-bus-outbox-limit', {
      numPartitions: 2,
      replicationFactor: 1,
      configEntries: [{ name: 'max.message.bytes', value: String(LIMIT) }],
    });
  });
  afterAll(() => deleteSpecTopic(kafka, topic));

  it('reads the limit at connect; the largest event it allows is appended, one byte more is FanoutLimitError and nothing is sent', async () => {
    const publisher = new KafkaOutboxPublisher(kafka, topic);
    expect(publisher.maxEventBytes()).toBeNull();
    await publisher.connect();
    const max = LIMIT - RECORD_BATCH_OVERHEAD_BYTES - RECORD_OVERHEAD_BYTES - 32;
    expect(publisher.maxEventBytes()).toBe(max);

    const fits = intentOfSize(1, max);
    const pub = await publisher.publish(fits);
    const before = publisher.stats().sends;
    const refused = publisher.publish(intentOfSize(2, max + 1));
    await expect(refused).rejects.toBeInstanceOf(FanoutLimitError);
    await expect(refused).rejects.toThrow(`topic ${topic} takes at most ${max} (max.message.bytes ${LIMIT})`);
    const stats = publisher.stats();
    await publisher.disconnect();

    expect(stats.sends).toBe(before);
    expect(stats.fences).toBe(0);
    const stored = await readTopic(kafka, topic);
    expect(stored.size).toBe(1);
    expect(falseAcks(stored, [{ partition: pub.partition, offset: pub.offset, value: encodeMessageEvent(messageEventOf(fits)) }])).toEqual([]);
  });

  it('events that fit alone are never grouped into a batch above the limit', async () => {
    const publisher = new KafkaOutboxPublisher(kafka, topic);
    await publisher.connect();
    // 40 events of ~3 KB in one conversation (one partition), issued in one tick: 120 KB, far above 16 KB.
    const intents = Array.from({ length: 40 }, (_, n) => sampleIntent(100 + n, { conversations: 1, bodyBytes: 3_000 }));
    const pubs: Publication[] = await Promise.all(intents.map((i) => publisher.publish(i)));
    const stats = publisher.stats();
    await publisher.disconnect();

    expect(stats.fences).toBe(0);
    expect(stats.sends).toBeGreaterThan(1);
    const acked = pubs.map((p, i) => ({ partition: p.partition, offset: p.offset, value: encodeMessageEvent(messageEventOf(intents[i]!)) }));
    expect(falseAcks(await readTopic(kafka, topic), acked)).toEqual([]);
  });
});
