import type { TopicReport, TopicSpec } from '@qim/bus';
import { createKafka, ensureTopics, withDeadLetterTopics } from '@qim/bus';
import type { CommonConfig } from '@qim/service-kit';

/**
 * The explicit, documented topic step (`main.js create-topics`): creates the messages topic with
 * `QIM_MESSAGES_PARTITIONS` partitions and the dispatch topic with `shards` (= QIM_MAILBOX_SHARDS)
 * partitions, and each one's dead-letter topic `<topic>.dlq`, replication `QIM_KAFKA_REPLICATION`,
 * `min.insync.replicas` 2 when the replication is ≥ 3 (else 1) and retention 7 days; verifies existing
 * ones (partitions, replicas, min.insync.replicas). Services never create topics.
 */
export async function createTopicsStep(config: CommonConfig, shards: number): Promise<TopicReport[]> {
  const kafka = createKafka({ brokers: config.kafka.brokers, clientId: `${config.kafka.clientId}-admin` });
  return ensureTopics(kafka, withDeadLetterTopics(mailboxTopicSpecs(config, shards)));
}

/** The mailbox's two topics (without their dead-letter topics). */
export function mailboxTopicSpecs(config: CommonConfig, shards: number): TopicSpec[] {
  return [
    { topic: config.kafka.messagesTopic, partitions: config.kafka.messagesPartitions, replicationFactor: config.kafka.replication },
    { topic: config.kafka.dispatchTopic, partitions: shards, replicationFactor: config.kafka.replication },
  ];
}
