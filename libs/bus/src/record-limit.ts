import type { Kafka } from 'kafkajs';
import { ConfigResourceTypes } from 'kafkajs';

/** Bytes a v2 record batch adds around its records (base offset … record count; no compression). */
export const RECORD_BATCH_OVERHEAD_BYTES = 61;

/**
 * Most bytes a v2 record adds around its key and value, without headers: length, attributes,
 * timestamp delta, offset delta, key length, value length (varints at their widest) and the header count.
 */
export const RECORD_OVERHEAD_BYTES = 32;

/**
 * The topic's `max.message.bytes` (the broker's `message.max.bytes` unless the topic overrides it):
 * the largest record batch the broker appends to it. Read once at start-up; a batch above it is
 * refused by the broker however often it is sent.
 */
export async function readTopicRecordLimit(kafka: Kafka, topic: string): Promise<number> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const described = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['max.message.bytes'] }],
    });
    const value = described.resources.find((r) => r.resourceName === topic)?.configEntries.find((e) => e.configName === 'max.message.bytes')?.configValue;
    const limit = Number(value);
    if (!Number.isSafeInteger(limit) || limit <= RECORD_BATCH_OVERHEAD_BYTES + RECORD_OVERHEAD_BYTES) {
      throw new Error(`topic ${topic}: max.message.bytes is ${value ?? 'unknown'}, not a usable record limit`);
    }
    return limit;
  } finally {
    await admin.disconnect();
  }
}

/** The largest value that fits alone in one batch of a topic whose limit is `limit`, with a key of `keyBytes`. */
export function largestValueBytes(limit: number, keyBytes: number): number {
  return limit - RECORD_BATCH_OVERHEAD_BYTES - RECORD_OVERHEAD_BYTES - keyBytes;
}
