import { randomUUID } from 'node:crypto';
import { Kafka, Partitioners, logLevel } from 'kafkajs';
import type { Admin, Consumer, Producer } from 'kafkajs';
import { requireEnv } from './env';

const brokers = requireEnv('QIM_KAFKA_BROKERS').split(',');

jest.setTimeout(120_000);

describe('Kafka smoke (real broker at QIM_KAFKA_BROKERS)', () => {
  const runId = randomUUID();
  // The broker runs with auto.create.topics.enable=false: the topic is created through the admin API.
  const topic = `qim-infra-smoke-${runId}`;
  const groupId = `qim-infra-smoke-${runId}`;
  const kafka = new Kafka({ clientId: 'qim-infra-smoke', brokers, logLevel: logLevel.WARN });
  let admin: Admin;
  let producer: Producer;
  let consumer: Consumer;

  beforeAll(async () => {
    admin = kafka.admin();
    await admin.connect();
    const created = await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }] });
    expect(created).toBe(true);
    // A just-created topic may be unknown to the broker's metadata for a moment (kafkajs's
    // waitForLeaders fails on that): poll until its partition has a leader.
    let last = 'no leader yet';
    for (let waited = 0; ; waited += 100) {
      const leader = await admin
        .fetchTopicMetadata({ topics: [topic] })
        .then((m) => m.topics[0]?.partitions[0]?.leader ?? -1)
        .catch((e: Error) => ((last = e.message), -1));
      if (leader >= 0) break;
      if (waited > 30_000) throw new Error(`topic ${topic} has no leader after 30 s (last: ${last})`);
      await new Promise((r) => setTimeout(r, 100));
    }
    producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    consumer = kafka.consumer({ groupId });
  });

  afterAll(async () => {
    await consumer?.disconnect();
    await producer?.disconnect();
    if (admin) {
      await admin.deleteGroups([groupId]).catch(() => undefined);
      await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
      await admin.disconnect();
    }
  });

  it('consumes back, through a consumer group, the record it produced', async () => {
    const value = `hello-${runId}`;
    await producer.connect();
    await producer.send({ topic, messages: [{ key: 'k1', value, headers: { source: 'smoke' } }] });

    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const received = await new Promise<{ key: string; value: string; source: string }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no record consumed within 60s')), 60_000);
      consumer
        .run({
          eachMessage: async ({ message }) => {
            clearTimeout(timer);
            resolve({
              key: message.key?.toString() ?? '',
              value: message.value?.toString() ?? '',
              source: message.headers?.['source']?.toString() ?? '',
            });
          },
        })
        .catch(reject);
    });
    expect(received).toEqual({ key: 'k1', value, source: 'smoke' });

    // The group committed its position: the coordinator knows the group and its offset.
    await consumer.stop();
    const offsets = await admin.fetchOffsets({ groupId, topics: [topic] });
    const committed = offsets[0]?.partitions[0]?.offset;
    expect(committed).toBe('1');
  });
});
