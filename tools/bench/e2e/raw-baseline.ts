import { randomBytes } from 'node:crypto';
import { Kafka, Partitioners, logLevel } from 'kafkajs';
import type { LatencySummary } from './stats';
import { sleep, summarize } from './stats';
import { createTopicsWithLeaders } from '@qim/bus';

export interface BaselineResult {
  readonly payloadBytes: number;
  readonly mode: string;
  readonly produced: number;
  readonly producedPerSecond: number;
  /** Produce call → acknowledgement (ms). */
  readonly ack: LatencySummary;
  /** Produce call → the record consumed by a consumer group (ms). */
  readonly endToEnd: LatencySummary;
  /** Acknowledged but not consumed by the deadline. */
  readonly notConsumed: number;
  /** Produced but not acknowledged by the deadline. */
  readonly unacknowledged: number;
}

/**
 * The raw baseline: plain kafkajs produce (acks = all, one record per send) → consume (a consumer
 * group, `eachBatch`) of records of `payloadBytes` through the same broker, at a fixed rate or with
 * `concurrency` sends in flight, for `seconds` plus at most 3 s to finish. The first 8 bytes of each
 * value carry its index.
 */
export async function rawBaseline(
  brokers: string[],
  payloadBytes: number,
  pace: { rate: number } | { concurrency: number },
  seconds: number,
): Promise<BaselineResult> {
  const kafka = new Kafka({ clientId: 'qim-bench-e2e-baseline', brokers, logLevel: logLevel.NOTHING });
  const run = randomBytes(6).toString('hex');
  const topic = `qimbench.baseline.${run}`;
  const admin = kafka.admin();
  await admin.connect();
  await createTopicsWithLeaders(admin, { topics: [{ topic, numPartitions: 4, replicationFactor: 1 }] });
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false });
  const consumer = kafka.consumer({ groupId: topic, maxWaitTimeInMs: 100 });
  const started: number[] = [];
  const acks: number[] = [];
  const e2e: number[] = [];
  try {
    await producer.connect();
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    let joined = false;
    consumer.on(consumer.events.GROUP_JOIN, () => (joined = true));
    await consumer.run({
      eachBatch: async ({ batch }) => {
        const now = performance.now();
        for (const m of batch.messages) if (m.value && m.value.length >= 8) e2e.push(now - started[Number(m.value.readBigUInt64BE(0))]!);
      },
    });
    for (let i = 0; i < 200 && !joined; i++) await sleep(50);
    const fill = randomBytes(Math.max(0, payloadBytes - 8));
    const send = async (k: number, start: number): Promise<void> => {
      const value = Buffer.alloc(Math.max(8, payloadBytes));
      value.writeBigUInt64BE(BigInt(k), 0);
      fill.copy(value, 8);
      started[k] = start;
      await producer.send({ topic, acks: -1, messages: [{ key: String(k % 97), value }] });
      acks.push(performance.now() - start);
    };
    const t0 = performance.now();
    // Bounded in time whatever the broker does: sends and consumption stop counting at the deadline.
    const deadline = t0 + (seconds + 3) * 1000;
    let next = 0;
    if ('rate' in pace) {
      const total = Math.floor(pace.rate * seconds);
      const pending: Promise<void>[] = [];
      for (; next < total; next++) {
        const due = t0 + (next * 1000) / pace.rate;
        const wait = due - performance.now();
        if (wait > 1) await sleep(wait);
        pending.push(send(next, Math.min(due, performance.now())));
      }
      await Promise.race([Promise.all(pending), sleep(Math.max(0, deadline - performance.now()))]);
    } else {
      const end = t0 + seconds * 1000;
      const worker = async (): Promise<void> => {
        while (performance.now() < end) await send(next++, performance.now());
      };
      await Promise.all(Array.from({ length: pace.concurrency }, worker));
    }
    const windowS = (performance.now() - t0) / 1000;
    while (e2e.length < acks.length && performance.now() < deadline) await sleep(50);
    return {
      payloadBytes,
      mode: 'rate' in pace ? `fixed ${pace.rate}/s` : `saturation ${pace.concurrency}`,
      produced: acks.length,
      producedPerSecond: Math.round(acks.length / windowS),
      ack: summarize(acks),
      endToEnd: summarize(e2e),
      notConsumed: acks.length - e2e.length,
      unacknowledged: next - acks.length,
    };
  } finally {
    await consumer.disconnect().catch(() => undefined);
    await producer.disconnect().catch(() => undefined);
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.deleteGroups([topic]).catch(() => undefined);
    await admin.disconnect();
  }
}
