import { randomUUID } from 'node:crypto';
import { encodeDispatchRecord, messageEventOf } from '@qim/store-core';
import type { Kafka } from 'kafkajs';
import { DispatchProducer } from './dispatch-producer';
import { createKafka } from './kafka-factory';
import { dispatchRecordsOf } from './router-plan';
import { falseAcks } from './testing/burst';
import { sampleIntent } from './testing/sample-intent';
import { readTopic } from './testing/topic-reader';
import { createTopicsWithLeaders } from './topics';

jest.setTimeout(120_000);

const SHARDS = 8;

function requireBrokers(): string[] {
  const v = process.env['QIM_KAFKA_BROKERS'];
  if (!v) throw new Error('QIM_KAFKA_BROKERS is not set: tools/infra/infra up kafka && eval "$(tools/infra/infra env)"');
  return v.split(',');
}

describe('DispatchProducer (real Kafka)', () => {
  let kafka: Kafka;
  let topic: string;

  beforeAll(async () => {
    kafka = createKafka({ brokers: requireBrokers(), clientId: 'bus-dispatch-spec' });
    topic = `qim-bus-dispatch-${randomUUID()}`;
    const admin = kafka.admin();
    await admin.connect();
    await createTopicsWithLeaders(admin, { topics: [{ topic, numPartitions: SHARDS, replicationFactor: 1 }] });
    await admin.disconnect();
  });

  afterAll(async () => {
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
  });

  it('sends many records to many shards in few requests; each record is acknowledged at its shard with its own offset', async () => {
    const producer = new DispatchProducer(kafka, topic);
    await producer.connect();
    const sends = Array.from({ length: 120 }, (_, n) => dispatchRecordsOf(messageEventOf(sampleIntent(n, { recipients: 1 + (n % 6) })), SHARDS));
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
    expect(falseAcks(stored, coords.map((c, i) => ({ partition: c.partition, offset: c.offset, value: encodeDispatchRecord(records[i]!) })))).toEqual([]);
  });
});
