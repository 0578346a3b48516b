// Readiness probe for the local Kafka broker: creates a topic through the admin API (the broker
// runs with auto.create.topics.enable=false), produces one record and consumes it back through
// a fresh consumer group. That exercises the controller, the partition leader and the group
// coordinator (__consumer_offsets), which is what services and tests need.
//
// Usage: node kafka-ready.mjs <host:port> <timeoutSeconds>
import { randomUUID } from 'node:crypto';
import { Kafka, Partitioners, logLevel } from 'kafkajs';

const [broker, timeoutArg = '120'] = process.argv.slice(2);
if (!broker) {
  console.error('usage: node kafka-ready.mjs <host:port> <timeoutSeconds>');
  process.exit(2);
}
const TOPIC = 'qim-infra-readiness';
const deadline = Date.now() + Number(timeoutArg) * 1000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const kafka = new Kafka({
  clientId: 'qim-infra-ready',
  brokers: [broker],
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
    if (!(await admin.listTopics()).includes(TOPIC)) {
      await admin.createTopics({
        topics: [{ topic: TOPIC, numPartitions: 1, replicationFactor: 1 }],
        waitForLeaders: true,
      });
    }
    await producer.connect();
    await producer.send({ topic: TOPIC, messages: [{ key: 'ready', value: nonce }] });
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
