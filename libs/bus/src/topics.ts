import type { Admin, ITopicConfig, Kafka } from 'kafkajs';
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
      await createTopicsWithLeaders(admin, {
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

/** What `awaitTopicLeaders` reads: the admin's metadata and offsets calls. */
export type TopicMetadataSource = Pick<Admin, 'fetchTopicMetadata' | 'fetchTopicOffsets'>;

/**
 * Errors a broker answers while a new topic has not yet reached its metadata cache, or while the
 * named leader has not yet taken up its partition (NOT_LEADER_FOR_PARTITION to a ListOffsets or
 * Produce request although the metadata already names it).
 */
const NOT_YET_KNOWN = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE', 'NOT_LEADER_FOR_PARTITION']);

/**
 * Waits until every partition of `topics` has a leader that serves it: the metadata names one and
 * the leaders answer a ListOffsets request for the topic. A broker answers a metadata request for a
 * topic it has just created with UNKNOWN_TOPIC_OR_PARTITION until its metadata cache catches up
 * (seen on the KRaft broker here); kafkajs's own `waitForLeaders` retries only LEADER_NOT_AVAILABLE
 * and fails on it, so this retries both every `delayMs` until `timeoutMs`, then fails naming the wait.
 */
export async function awaitTopicLeaders(
  admin: TopicMetadataSource,
  topics: readonly string[],
  opts: { readonly timeoutMs?: number; readonly delayMs?: number } = {},
): Promise<void> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const delayMs = opts.delayMs ?? 100;
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  for (;;) {
    try {
      const meta = await admin.fetchTopicMetadata({ topics: [...topics] });
      const waiting = topics.filter((t) => {
        const parts = meta.topics.find((x) => x.name === t)?.partitions ?? [];
        return parts.length === 0 || parts.some((p) => p.leader < 0);
      });
      if (waiting.length === 0) {
        // Seen here under load: the metadata names a leader a moment before it answers for the partition.
        for (const t of topics) await admin.fetchTopicOffsets(t);
        return;
      }
      last = `no leader yet for ${waiting.join(', ')}`;
    } catch (e) {
      const type = (e as { type?: unknown }).type;
      if (typeof type !== 'string' || !NOT_YET_KNOWN.has(type)) throw e;
      last = `${type}: ${(e as Error).message}`;
    }
    if (Date.now() + delayMs > deadline) {
      throw new Error(`topics ${topics.join(', ')} have no leader after ${timeoutMs} ms (${last})`);
    }
    await new Promise((r) => setTimeout(r, delayMs));
  }
}

/** Creates `topics` (an existing one is left as it is) and waits for their leaders with `awaitTopicLeaders`. */
export async function createTopicsWithLeaders(admin: Admin, args: { readonly topics: ITopicConfig[]; readonly timeoutMs?: number }): Promise<boolean> {
  const created = await admin.createTopics({ waitForLeaders: false, topics: args.topics });
  await awaitTopicLeaders(
    admin,
    args.topics.map((t) => t.topic),
    { timeoutMs: args.timeoutMs },
  );
  return created;
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

/**
 * `verifyTopics` over one admin client, connected on first use and reused by every later call (a
 * readiness probe asks again and again; a client per call would cost a connection and a metadata
 * round trip each time). A failed connect is forgotten, so the next call connects again; calls
 * made while a connect is under way wait for that same connect.
 */
export class TopicVerifier {
  private admin: Promise<Admin> | null = null;

  constructor(private readonly kafka: Pick<Kafka, 'admin'>) {}

  private connected(): Promise<Admin> {
    if (!this.admin) {
      const admin = this.kafka.admin();
      const connecting = admin.connect().then(() => admin);
      this.admin = connecting;
      connecting.catch(() => {
        if (this.admin === connecting) this.admin = null;
        void admin.disconnect().catch(() => undefined);
      });
    }
    return this.admin;
  }

  async verify(specs: readonly TopicSpec[], options: VerifyOptions = {}): Promise<TopicReport[]> {
    return verifyWith(await this.connected(), specs, options);
  }

  async close(): Promise<void> {
    const admin = this.admin;
    this.admin = null;
    if (admin) await (await admin.catch(() => null))?.disconnect();
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
