import { randomUUID } from 'node:crypto';
import { ConfigResourceTypes, Kafka, Partitioners, logLevel } from 'kafkajs';
import type { Admin, Producer } from 'kafkajs';
import { requireEnv } from '../env';
import { infra, until } from './infra-cli';

// Read at module load so a missing variable fails the suite instead of skipping it.
const brokers = requireEnv('QIM_TEST_KAFKA3_BROKERS').split(',');

jest.setTimeout(400_000);

/**
 * Leader and in-sync replicas of partition 0 of `topic`. A just-created topic can be unknown to
 * the broker asked for a moment (kafkajs's own waitForLeaders fails on that), hence the polling
 * through `until` wherever the topic is new.
 */
async function partition0(admin: Admin, topic: string): Promise<{ leader: number; isr: number[]; replicas: number[] }> {
  const meta = await admin.fetchTopicMetadata({ topics: [topic] });
  const p = meta.topics[0]!.partitions.find((x) => x.partitionId === 0)!;
  return { leader: p.leader, isr: [...p.isr].sort(), replicas: [...p.replicas].sort() };
}

describe('Kafka three-broker smoke (KRaft cluster at QIM_TEST_KAFKA3_BROKERS)', () => {
  const runId = randomUUID();
  // The cluster is the production shape, so the test never relies on broker-side retries of ours:
  // errors surface in the assertions; kafkajs's own reconnect noise is silenced.
  const kafka = new Kafka({ clientId: 'qim-infra-smoke-kafka3', brokers, logLevel: logLevel.NOTHING });
  let admin: Admin;
  let producer: Producer;
  let killed: number | undefined;

  beforeAll(async () => {
    admin = kafka.admin();
    await admin.connect();
    producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, idempotent: true });
    await producer.connect();
  });

  afterAll(async () => {
    // A failed expectation must not leave the cluster one broker short for the next user.
    if (killed !== undefined) infra('kafka3-start', String(killed));
    await producer?.disconnect();
    await admin?.disconnect();
  });

  it('has three brokers and gives a new topic replication 3 with min.insync.replicas 2', async () => {
    const { brokers: registered } = await admin.describeCluster();
    expect(registered.map((b) => b.nodeId).sort()).toEqual([1, 2, 3]);

    const topic = `qim-infra-smoke-defaults-${runId}`;
    // No replication factor given: the broker's default.replication.factor applies.
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: false });
    try {
      const p = await until('partition fully in sync', 30_000, async () => {
        const x = await partition0(admin, topic);
        return x.isr.length === 3 ? x : undefined;
      });
      expect(p.replicas).toEqual([1, 2, 3]);
      const described = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['min.insync.replicas'] }],
      });
      expect(described.resources[0]!.configEntries[0]!.configValue).toBe('2');
    } finally {
      await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    }
  });

  it('keeps acks=all produce working and every acknowledged record when the leader is kill -9ed, then takes the broker back', async () => {
    const topic = `qim-infra-smoke-failover-${runId}`;
    await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 3 }], waitForLeaders: false });
    const before = await until('partition fully in sync', 30_000, async () => {
      const x = await partition0(admin, topic);
      return x.isr.length === 3 ? x : undefined;
    });
    await producer.send({ topic, acks: -1, messages: [{ key: 'k', value: 'before-kill' }] });

    infra('kafka3-kill', String(before.leader));
    killed = before.leader;
    const t0 = Date.now();
    // acks=all with min.insync.replicas 2: acknowledged once the two live brokers have it. The
    // send is retried until the killed leader is fenced and a new one elected (bounded).
    await until('acks=all produce after the leader kill', 90_000, async () => {
      await producer.send({ topic, acks: -1, timeout: 10_000, messages: [{ key: 'k', value: 'after-kill' }] });
      return true;
    });
    const resumedMs = Date.now() - t0;
    process.stderr.write(`[smoke] acks=all produce accepted ${resumedMs} ms after kill -9 of leader ${before.leader}\n`);
    const during = await partition0(admin, topic);
    expect(during.leader).not.toBe(before.leader);
    expect(during.isr).not.toContain(before.leader);

    // Both acknowledged records are there, read through a consumer group on the surviving brokers.
    const consumer = kafka.consumer({ groupId: `qim-infra-smoke-kafka3-${runId}` });
    try {
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      const seen: string[] = [];
      await consumer.run({ eachMessage: async ({ message }) => void seen.push(message.value?.toString() ?? '') });
      await until('both acknowledged records consumed', 90_000, async () => (seen.includes('after-kill') ? true : undefined));
      expect(seen.filter((v) => v === 'before-kill')).toHaveLength(1);
      expect(seen).toContain('after-kill');
    } finally {
      await consumer.disconnect();
    }

    infra('kafka3-start', String(before.leader));
    killed = undefined;
    const after = await partition0(admin, topic);
    expect(after.isr).toEqual([1, 2, 3]);
    const { brokers: registered } = await admin.describeCluster();
    expect(registered.map((b) => b.nodeId).sort()).toEqual([1, 2, 3]);
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
  });
});
