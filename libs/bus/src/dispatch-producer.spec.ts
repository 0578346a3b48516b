import { encodeDispatchRecord } from '@qim/store-core';
import type { Kafka } from 'kafkajs';
import { DispatchProducer } from './dispatch-producer';
import { createKafka } from './kafka-factory';
import { falseAcks } from './testing/burst';
import { createSpecTopic, deleteSpecTopic, specBrokers } from './testing/kafka-spec';
import { sampleDispatches } from './testing/sample-dispatches';
import { sampleIntent } from './testing/sample-intent';
import { readTopic } from './testing/topic-reader';

jest.setTimeout(120_000);

const SHARDS = 8;

describe('DispatchProducer (real Kafka)', () => {
  let kafka: Kafka;
  let topic: string;

  beforeAll(async () => {
    kafka = createKafka({ brokers: specBrokers(), clientId: 'bus-dispatch-spec' });
    topic = await createSpecTopic(kafka, 'qim-bus-dispatch', { numPartitions: SHARDS, replicationFactor: 1 });
  });
  afterAll(() => deleteSpecTopic(kafka, topic));

  it('sends many records to many shards in few requests; each record is acknowledged at its shard with its own offset', async () => {
    const producer = new DispatchProducer(kafka, topic);
    await producer.connect();
    const sends = Array.from({ length: 120 }, (_, n) => sampleDispatches(sampleIntent(n, { recipients: 1 + (n % 6) }), SHARDS));
    const results = await Promise.all(sends.map((records) => producer.send(records)));
    expect(await producer.send([])).toEqual([]);
    const stats = producer.stats();
    await producer.disconnect();

    const records = sends.flat();
    const coords = results.flat();
    expect(new Set(sends.map((s) => s.length)).size).toBeGreaterThan(1);
    expect(coords).toHaveLength(records.length);
    expect(coords.every((c, i) => c.topic === topic && c.partition === records[i]!.shard)).toBe(true);
    // Issued in one tick, all 120 sends go in one request (the Produce requests a broker answered may be more: retries count).
    expect(stats.sends).toBe(1);
    const stored = await readTopic(kafka, topic);
    expect(stored.size).toBe(records.length);
    expect(
      falseAcks(
        stored,
        coords.map((c, i) => ({ partition: c.partition, offset: c.offset, value: encodeDispatchRecord(records[i]!) })),
      ),
    ).toEqual([]);
  });
});
