import { GroupOffsetsReader, createKafka, parseDeadLetter } from '@qim/bus';
import type { DeadLetterEnvelope, PartitionOffsets } from '@qim/bus';
import { builtEntry } from './build-services';

type Kafka = ReturnType<typeof createKafka>;

/** Direct Kafka access of a spec (raw records, group offsets, topic recreation), through @qim/bus. */
export class KafkaProbe {
  readonly kafka: Kafka;

  constructor(env: Record<string, string>) {
    this.kafka = createKafka({ brokers: env['QIM_KAFKA_BROKERS']!.split(','), clientId: `${env['QIM_KAFKA_CLIENT_ID']}-probe` });
  }

  /** Produces raw bytes (acks = all) to one partition. */
  async produceRaw(topic: string, partition: number, values: readonly Buffer[]): Promise<bigint[]> {
    const producer = this.kafka.producer();
    await producer.connect();
    try {
      const acks = await producer.send({ topic, acks: -1, messages: values.map((value) => ({ partition, value })) });
      const base = BigInt(acks[0]!.baseOffset!);
      return values.map((_, i) => base + BigInt(i));
    } finally {
      await producer.disconnect();
    }
  }

  async offsets(group: string, topic: string): Promise<PartitionOffsets[]> {
    const r = new GroupOffsetsReader(this.kafka);
    try {
      return await r.offsets(group, topic);
    } finally {
      await r.close();
    }
  }

  /** Every record of `topic` up to its end offsets of now, `partition:offset` → value. */
  async readAll(topic: string): Promise<Map<string, Buffer>> {
    const out = new Map<string, Buffer>();
    const remaining = new Map((await this.offsets(`${topic}.probe`, topic)).filter((p) => p.end > p.low).map((p) => [p.partition, p.end]));
    if (remaining.size === 0) return out;
    const consumer = this.kafka.consumer({ groupId: `${topic}.probe.${Date.now()}` });
    await consumer.connect();
    try {
      await consumer.subscribe({ topic, fromBeginning: true });
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${topic} not read to its end`)), 60_000);
        void consumer.run({
          eachBatch: async ({ batch }) => {
            for (const m of batch.messages) {
              out.set(`${batch.partition}:${m.offset}`, m.value ?? Buffer.alloc(0));
              if (BigInt(m.offset) + 1n >= (remaining.get(batch.partition) ?? 0n)) remaining.delete(batch.partition);
            }
            if (remaining.size === 0) {
              clearTimeout(timer);
              resolve();
            }
          },
        });
      });
    } finally {
      await consumer.disconnect();
    }
    return out;
  }

  async deadLetters(topic: string): Promise<DeadLetterEnvelope[]> {
    return [...(await this.readAll(`${topic}.dlq`)).values()].map(parseDeadLetter);
  }

  /** Deletes `topic` and waits until the brokers no longer list it. */
  async deleteTopic(topic: string): Promise<void> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      await admin.deleteTopics({ topics: [topic] });
      for (let i = 0; i < 100 && (await admin.listTopics()).includes(topic); i++) await new Promise((r) => setTimeout(r, 200));
    } finally {
      await admin.disconnect();
    }
  }
}

/** The admin CLI's bundle (its `build` target's output, built once per run by the global setup). */
export function adminEntry(): string {
  return builtEntry('admin');
}
