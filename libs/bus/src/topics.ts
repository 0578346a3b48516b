import type { Kafka } from 'kafkajs';

export interface TopicSpec {
  readonly topic: string;
  readonly partitions: number;
  readonly replicationFactor: number;
}

export interface TopicReport {
  readonly topic: string;
  readonly created: boolean;
  readonly partitions: number;
}

/**
 * The explicit topic step (`create-topics`): creates missing topics with the configured partition
 * counts, then verifies every topic's partition count. A topic that exists with another count is an
 * error (the dispatch topic's partitions are the shards; changing them is an epoch change).
 */
export async function ensureTopics(kafka: Kafka, specs: readonly TopicSpec[]): Promise<TopicReport[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = specs.filter((s) => !existing.has(s.topic));
    if (missing.length > 0) {
      await admin.createTopics({
        waitForLeaders: true,
        topics: missing.map((s) => ({ topic: s.topic, numPartitions: s.partitions, replicationFactor: s.replicationFactor })),
      });
    }
    const created = new Set(missing.map((s) => s.topic));
    const reports = await verifyWith(admin, specs);
    return reports.map((r) => ({ ...r, created: created.has(r.topic) }));
  } finally {
    await admin.disconnect();
  }
}

/** Verifies that every topic exists with its configured partition count; throws naming the first that does not. */
export async function verifyTopics(kafka: Kafka, specs: readonly TopicSpec[]): Promise<TopicReport[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return await verifyWith(admin, specs);
  } finally {
    await admin.disconnect();
  }
}

async function verifyWith(admin: ReturnType<Kafka['admin']>, specs: readonly TopicSpec[]): Promise<TopicReport[]> {
  const existing = new Set(await admin.listTopics());
  const absent = specs.filter((s) => !existing.has(s.topic));
  if (absent.length > 0) {
    throw new Error(`topic ${absent.map((s) => s.topic).join(', ')} does not exist: run the create-topics step first`);
  }
  const meta = await admin.fetchTopicMetadata({ topics: specs.map((s) => s.topic) });
  return specs.map((s) => {
    const t = meta.topics.find((x) => x.name === s.topic);
    const partitions = t?.partitions.length ?? 0;
    if (partitions !== s.partitions) {
      throw new Error(`topic ${s.topic} has ${partitions} partitions, configuration says ${s.partitions}`);
    }
    return { topic: s.topic, created: false, partitions };
  });
}

/** Per partition: the committed offset of `groupId` (null when none) and the log end offset. */
export async function consumerLag(
  kafka: Kafka,
  groupId: string,
  topic: string,
): Promise<{ partition: number; committed: bigint | null; end: bigint }[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const ends = await admin.fetchTopicOffsets(topic);
    const [group] = await admin.fetchOffsets({ groupId, topics: [topic] });
    return ends
      .map((e) => {
        const c = group?.partitions.find((p) => p.partition === e.partition)?.offset;
        return { partition: e.partition, committed: c === undefined || c === '-1' ? null : BigInt(c), end: BigInt(e.high) };
      })
      .sort((a, b) => a.partition - b.partition);
  } finally {
    await admin.disconnect();
  }
}
