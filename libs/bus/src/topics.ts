import type { Admin, Kafka } from 'kafkajs';
import { ConfigResourceTypes } from 'kafkajs';
import { deadLetterTopicOf } from './dead-letter';

export interface TopicSpec {
  readonly topic: string;
  readonly partitions: number;
  readonly replicationFactor: number;
  /** `retention.ms` set on creation (default `DEFAULT_RETENTION_MS`). */
  readonly retentionMs?: number;
}

/** The stated retention of every topic: 7 days (the dispatch dedupe window, 8 days, exceeds it). */
export const DEFAULT_RETENTION_MS = 7 * 86_400_000;

/** `min.insync.replicas` for a replication factor: 2 when RF ≥ 3 (one broker may fail), else 1. */
export const minInsyncReplicasFor = (replicationFactor: number): number => (replicationFactor >= 3 ? 2 : 1);

/** `specs` followed by each topic's dead-letter topic (`<topic>.dlq`, one partition per source partition). */
export function withDeadLetterTopics(specs: readonly TopicSpec[]): TopicSpec[] {
  return [...specs, ...specs.map((s) => ({ ...s, topic: deadLetterTopicOf(s.topic) }))];
}

/** How strictly existing topics are checked. */
export interface VerifyOptions {
  /**
   * Also require every partition's replica count to be the configured replication factor and the
   * topic's `min.insync.replicas` to be `minInsyncReplicasFor(replicationFactor)` (production).
   */
  readonly durability?: boolean;
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
        topics: missing.map((s) => ({
          topic: s.topic,
          numPartitions: s.partitions,
          replicationFactor: s.replicationFactor,
          configEntries: [
            { name: 'min.insync.replicas', value: String(minInsyncReplicasFor(s.replicationFactor)) },
            { name: 'retention.ms', value: String(s.retentionMs ?? DEFAULT_RETENTION_MS) },
          ],
        })),
      });
    }
    const created = new Set(missing.map((s) => s.topic));
    const reports = await verifyWith(admin, specs, { durability: true });
    return reports.map((r) => ({ ...r, created: created.has(r.topic) }));
  } finally {
    await admin.disconnect();
  }
}

/** Verifies that every topic exists with its configured partition count; throws naming the first that does not. */
export async function verifyTopics(kafka: Kafka, specs: readonly TopicSpec[], options: VerifyOptions = {}): Promise<TopicReport[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return await verifyWith(admin, specs, options);
  } finally {
    await admin.disconnect();
  }
}

async function verifyWith(admin: Admin, specs: readonly TopicSpec[], options: VerifyOptions): Promise<TopicReport[]> {
  const existing = new Set(await admin.listTopics());
  const absent = specs.filter((s) => !existing.has(s.topic));
  if (absent.length > 0) {
    throw new Error(`topic ${absent.map((s) => s.topic).join(', ')} does not exist: run the create-topics step first`);
  }
  const meta = await admin.fetchTopicMetadata({ topics: specs.map((s) => s.topic) });
  const reports = specs.map((s) => {
    const t = meta.topics.find((x) => x.name === s.topic);
    const partitions = t?.partitions.length ?? 0;
    if (partitions !== s.partitions) {
      throw new Error(`topic ${s.topic} has ${partitions} partitions, configuration says ${s.partitions}`);
    }
    if (options.durability) {
      const short = t?.partitions.find((p) => p.replicas.length !== s.replicationFactor);
      if (short) {
        throw new Error(`topic ${s.topic} partition ${short.partitionId} has ${short.replicas.length} replicas, configuration says ${s.replicationFactor}`);
      }
    }
    return { topic: s.topic, created: false, partitions };
  });
  if (options.durability) await verifyMinInsync(admin, specs);
  return reports;
}

async function verifyMinInsync(admin: Admin, specs: readonly TopicSpec[]): Promise<void> {
  const described = await admin.describeConfigs({
    includeSynonyms: false,
    resources: specs.map((s) => ({ type: ConfigResourceTypes.TOPIC, name: s.topic, configNames: ['min.insync.replicas'] })),
  });
  for (const s of specs) {
    const entry = described.resources.find((r) => r.resourceName === s.topic)?.configEntries.find((e) => e.configName === 'min.insync.replicas');
    const want = minInsyncReplicasFor(s.replicationFactor);
    if (entry?.configValue !== String(want)) {
      throw new Error(`topic ${s.topic} has min.insync.replicas=${entry?.configValue ?? 'unknown'}, required ${want} for replication ${s.replicationFactor}`);
    }
  }
}
