import { randomUUID } from 'node:crypto';
import type { Kafka } from 'kafkajs';
import { createKafka } from './kafka-factory';
import { PartitionConsumer } from './partition-consumer';
import { faultBrokerAt } from './testing/fault-broker';
import { createTopicsWithLeaders } from './topics';

// Its own broker: producer-faults.spec pauses the default one, possibly in the other Jest worker.
const faultBroker = faultBrokerAt({ name: 'kafka-fault-consumer', port: 19_292, controllerPort: 19_293 });

jest.setTimeout(240_000);

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
async function until(what: string, probe: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/**
 * Issue 11 item 9 over the separate fault broker (`tools/infra/infra kafka-fault`): a consumer that
 * crashed when its broker died and rejoined when it came back reports healthy again at once, without
 * waiting for a record to arrive; the crash revokes its partitions at once (issue 28 item 6), the
 * rejoin assigns them again.
 */
describe('PartitionConsumer under a broker restart (real Kafka, kafka-fault broker)', () => {
  let kafka: Kafka;
  let consumer: PartitionConsumer | null = null;

  beforeAll(async () => {
    const brokers = await faultBroker.up();
    kafka = createKafka({ brokers, clientId: 'consumer-faults', connectionTimeoutMs: 1_000, requestTimeoutMs: 1_500 });
  });
  afterAll(async () => {
    await consumer?.stop().catch(() => undefined);
    await faultBroker.down();
  });

  it('is healthy again after a recovered crash without any traffic', async () => {
    const topic = `qim-consumer-faults-${randomUUID()}`;
    const admin = kafka.admin();
    await admin.connect();
    await createTopicsWithLeaders(admin, { topics: [{ topic, numPartitions: 1, replicationFactor: 1 }] });
    await admin.disconnect();
    let handled = 0;
    const terminal: string[] = [];
    const revoked: string[] = [];
    const handler = { handlePage: async () => void (handled += 1), onRevoked: (reason: string) => void revoked.push(reason) };
    consumer = new PartitionConsumer(kafka, handler, {
      groupId: `${topic}-group`,
      topic,
      concurrency: 1,
      pageRecords: 10,
      onTerminal: (r) => terminal.push(r),
    });
    await consumer.start();
    expect(consumer.healthy().ok).toBe(true);
    expect(consumer.assignment()).toEqual([0]);

    await faultBroker.kill();
    await until('the consumer reports its crash', () => !consumer!.healthy().ok, 120_000);
    expect((consumer.healthy().detail as { crashed: string | null }).crashed).not.toBeNull();
    // Issue 28 item 6: the crash gave the partition up at once (another member may own it now).
    expect(revoked.some((r) => r.startsWith('crashed: '))).toBe(true);
    expect(consumer.assignment()).toEqual([]);
    await faultBroker.restart();
    await until('healthy again after rejoining', () => consumer!.healthy().ok, 120_000);
    expect(consumer.assignment()).toEqual([0]);
    expect(handled).toBe(0);
    expect(terminal).toEqual([]);
  });
});
