// Readiness probe for the local Kafka broker: creates a topic through the admin API (the broker
// runs with auto.create.topics.enable=false), produces one record and consumes it back through
// a fresh consumer group. That exercises the controller, the partition leader and the group
// coordinator (__consumer_offsets), which is what services and tests need.
//
// With --replication N (the three-broker cluster): the cluster must list N brokers, the topic has
// replication N, every partition of every topic must have all its replicas in sync, and the
// record is produced with acks=all.
//
// Usage: node kafka-ready.mjs <host:port[,host:port…]> <timeoutSeconds> [--replication N]
import { randomUUID } from 'node:crypto';
import { Kafka, Partitioners, logLevel } from 'kafkajs';

const [broker, timeoutArg = '120', ...rest] = process.argv.slice(2);
if (!broker) {
  console.error('usage: node kafka-ready.mjs <host:port[,…]> <timeoutSeconds> [--replication N]');
  process.exit(2);
}
const replIdx = rest.indexOf('--replication');
const replication = replIdx >= 0 ? Number(rest[replIdx + 1]) : 1;
const TOPIC = replication > 1 ? `qim-infra-readiness-rf${replication}` : 'qim-infra-readiness';
const deadline = Date.now() + Number(timeoutArg) * 1000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const kafka = new Kafka({
  clientId: 'qim-infra-ready',
  brokers: broker.split(','),
  logLevel: logLevel.NOTHING,
  retry: { retries: 2 },
});

async function roundTrip() {
  const nonce = randomUUID();
  const groupId = `qim-infra-ready-${nonce}`;
  const admin = kafka.admin();
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  const consumer = kafka.consumer({ groupId });
  try {
    await admin.connect();
    if (replication > 1) await requireEachBrokerServes();
    if (!(await admin.listTopics()).includes(TOPIC)) {
      await admin.createTopics({
        topics: [{ topic: TOPIC, numPartitions: 1, replicationFactor: replication }],
        waitForLeaders: true,
      });
    }
    if (replication > 1) await requireAllInSync(admin);
    await producer.connect();
    await producer.send({ topic: TOPIC, acks: -1, messages: [{ key: 'ready', value: nonce }] });
    await consumer.connect();
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('record not consumed back within 60s')), 60_000);
      consumer
        .run({
          eachMessage: async ({ message }) => {
            if (message.value?.toString() === nonce) {
              clearTimeout(timer);
              resolve();
            }
          },
        })
        .catch(reject);
    });
  } finally {
    await consumer.disconnect().catch(() => undefined);
    await producer.disconnect().catch(() => undefined);
    // One throw-away group per probe; delete it so they do not pile up.
    await admin.deleteGroups([groupId]).catch(() => undefined);
    await admin.disconnect().catch(() => undefined);
  }
}

/**
 * Throws unless every listed broker answers a metadata request itself and sees `replication`
 * brokers. The cluster's view alone can be stale: a broker killed a moment ago stays registered
 * (and in every ISR) until its session times out (broker.session.timeout.ms).
 */
async function requireEachBrokerServes() {
  for (const one of broker.split(',')) {
    const admin = new Kafka({
      clientId: 'qim-infra-ready',
      brokers: [one],
      logLevel: logLevel.NOTHING,
      retry: { retries: 0 },
    }).admin();
    try {
      await admin.connect();
      const { brokers } = await admin.describeCluster();
      if (brokers.length !== replication) throw new Error(`${one} sees ${brokers.length} of ${replication} brokers`);
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }
}

/** Throws unless every partition of every topic (internal ones too) has all its replicas in sync. */
async function requireAllInSync(admin) {
  const { topics } = await admin.fetchTopicMetadata();
  for (const t of topics) {
    for (const p of t.partitions) {
      if (p.leader < 0 || p.isr.length < p.replicas.length) {
        throw new Error(`${t.name}/${p.partitionId}: leader ${p.leader}, isr [${p.isr}] of replicas [${p.replicas}]`);
      }
    }
  }
}

let lastError;
while (Date.now() < deadline) {
  try {
    await roundTrip();
    console.error(`[kafka-ready] ${broker}: record produced to ${TOPIC} and consumed back by a consumer group`);
    process.exit(0);
  } catch (err) {
    lastError = err;
    await sleep(1000);
  }
}
console.error(`[kafka-ready] ${broker} not ready within ${timeoutArg}s: ${lastError?.message ?? lastError}`);
process.exit(1);
