import { randomBytes } from 'node:crypto';
import type { Kafka } from 'kafkajs';
import { ConfigResourceTypes } from 'kafkajs';
import { createKafka } from './kafka-factory';
import { DEFAULT_RETENTION_MS, createTopicsWithLeaders, ensureTopics, minInsyncReplicasFor, verifyTopics, withDeadLetterTopics } from './topics';

/**
 * Over the real Kafka of `tools/infra` (QIM_KAFKA_BROKERS): the topic step creates every topic and its
 * dead-letter topic with a stated retention and min.insync.replicas, and the production check refuses
 * a topic without them.
 */
const brokers = process.env['QIM_KAFKA_BROKERS'];
if (!brokers) throw new Error('QIM_KAFKA_BROKERS is not set: run `tools/infra/infra up kafka` and `eval "$(tools/infra/infra env)"`');

jest.setTimeout(60_000);

describe('topics (real Kafka)', () => {
  let kafka: Kafka;
  let run: string;
  const made: string[] = [];

  beforeEach(() => {
    run = randomBytes(4).toString('hex');
    kafka = createKafka({ brokers: brokers.split(','), clientId: `qimtest-${run}` });
  });
  afterEach(async () => {
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics: made.splice(0) }).catch(() => undefined);
    await admin.disconnect();
  });

  async function configOf(topic: string): Promise<Record<string, string>> {
    const admin = kafka.admin();
    await admin.connect();
    try {
      const d = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['min.insync.replicas', 'retention.ms'] }],
      });
      return Object.fromEntries(d.resources[0]!.configEntries.map((e) => [e.configName, e.configValue]));
    } finally {
      await admin.disconnect();
    }
  }

  it('creates each topic and its <topic>.dlq with retention 7 days and min.insync.replicas for the replication', async () => {
    const topic = `qimtest.topics.${run}`;
    made.push(topic, `${topic}.dlq`);
    const reports = await ensureTopics(kafka, withDeadLetterTopics([{ topic, partitions: 3, replicationFactor: 1 }]));
    expect(reports.map((r) => [r.topic, r.created, r.partitions])).toEqual([
      [topic, true, 3],
      [`${topic}.dlq`, true, 3],
    ]);
    for (const t of [topic, `${topic}.dlq`]) {
      expect(await configOf(t)).toEqual({ 'min.insync.replicas': '1', 'retention.ms': String(DEFAULT_RETENTION_MS) });
    }
    expect(DEFAULT_RETENTION_MS).toBe(604_800_000);
    expect([1, 2, 3, 5].map(minInsyncReplicasFor)).toEqual([1, 1, 2, 2]);
    await expect(verifyTopics(kafka, [{ topic, partitions: 3, replicationFactor: 1 }], { durability: true })).resolves.toHaveLength(1);
  });

  it('refuses, when durability is checked, a topic whose replication or min.insync.replicas differs from the configuration', async () => {
    const topic = `qimtest.topics.${run}`;
    made.push(topic);
    const admin = kafka.admin();
    await admin.connect();
    await createTopicsWithLeaders(admin, {
      topics: [{ topic, numPartitions: 1, replicationFactor: 1, configEntries: [{ name: 'min.insync.replicas', value: '2' }] }],
    });
    await admin.disconnect();
    await expect(verifyTopics(kafka, [{ topic, partitions: 1, replicationFactor: 1 }], { durability: true })).rejects.toThrow(
      `topic ${topic} has min.insync.replicas=2, required 1 for replication 1`,
    );
    await expect(verifyTopics(kafka, [{ topic, partitions: 1, replicationFactor: 3 }], { durability: true })).rejects.toThrow(
      `topic ${topic} partition 0 has 1 replicas, configuration says 3`,
    );
    await expect(verifyTopics(kafka, [{ topic, partitions: 1, replicationFactor: 1 }])).resolves.toHaveLength(1);
  });
});
