import type { Kafka } from 'kafkajs';

/** Every record of `topic`, keyed `partition:offset`, read from the beginning up to the end offsets of now. */
export async function readTopic(kafka: Kafka, topic: string, timeoutMs = 60_000): Promise<Map<string, Buffer>> {
  const admin = kafka.admin();
  await admin.connect();
  const ends = new Map<number, bigint>();
  try {
    for (const p of await admin.fetchTopicOffsets(topic)) ends.set(p.partition, BigInt(p.high));
  } finally {
    await admin.disconnect();
  }
  const out = new Map<string, Buffer>();
  const remaining = new Set([...ends].filter(([, high]) => high > 0n).map(([p]) => p));
  if (remaining.size === 0) return out;
  const consumer = kafka.consumer({ groupId: `${topic}.reader.${process.pid}.${Date.now()}` });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise<void>((resolveAll, reject) => {
      const timer = setTimeout(() => reject(new Error(`topic ${topic} not read to its end within ${timeoutMs} ms`)), timeoutMs);
      void consumer.run({
        autoCommit: false,
        eachBatch: async ({ batch }) => {
          for (const m of batch.messages) {
            const offset = BigInt(m.offset);
            out.set(`${batch.partition}:${offset}`, m.value ?? Buffer.alloc(0));
            if (offset + 1n >= (ends.get(batch.partition) ?? 0n)) remaining.delete(batch.partition);
          }
          if (remaining.size === 0) {
            clearTimeout(timer);
            resolveAll();
          }
        },
      });
    });
  } finally {
    await consumer.disconnect();
  }
  return out;
}
